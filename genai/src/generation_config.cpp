#include <mosaic/genai/generation_config.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>

namespace mosaic::genai {

namespace {

using Setter = std::function<void(GenerationConfig&, const nlohmann::json&, const std::string& where)>;

[[noreturn]] void wrong_type(const std::string& where, const nlohmann::json& value, const char* wanted) {
    throw GenerationConfigError(where + " is " + value.dump() + "; it must be " + wanted);
}

size_t as_count(const std::string& where, const nlohmann::json& v) {
    if (v.is_number_integer() && v.get<int64_t>() >= 0) return v.get<size_t>();
    if (v.is_number_unsigned()) return v.get<size_t>();
    wrong_type(where, v, "a whole number >= 0");
}

int64_t as_id(const std::string& where, const nlohmann::json& v) {
    if (v.is_number_integer() && v.get<int64_t>() >= 0) return v.get<int64_t>();
    wrong_type(where, v, "a token id (a whole number >= 0)");
}

float as_float(const std::string& where, const nlohmann::json& v) {
    if (v.is_number()) return v.get<float>();
    wrong_type(where, v, "a number");
}

bool as_bool(const std::string& where, const nlohmann::json& v) {
    if (v.is_boolean()) return v.get<bool>();
    wrong_type(where, v, "true or false");
}

template <typename T>
Setter member(T GenerationConfig::*field, T (*convert)(const std::string&, const nlohmann::json&)) {
    return [field, convert](GenerationConfig& c, const nlohmann::json& v, const std::string& where) { c.*field = convert(where, v); };
}

// Hugging Face writes eos_token_id as one id or a list (Llama-3: [128001, 128008, 128009]): every
// one stops the generation.
void set_eos(GenerationConfig& c, const nlohmann::json& v, const std::string& where) {
    if (v.is_null()) return;
    if (!v.is_array()) {
        c.eos_token_id = as_id(where, v);
        c.stop_token_ids.insert(*c.eos_token_id);
        return;
    }
    for (size_t i = 0; i < v.size(); ++i) {
        const int64_t id = as_id(where + "[" + std::to_string(i) + "]", v[i]);
        if (i == 0) c.eos_token_id = id;
        c.stop_token_ids.insert(id);
    }
}

void set_stop_ids(GenerationConfig& c, const nlohmann::json& v, const std::string& where) {
    if (!v.is_array()) wrong_type(where, v, "a list of token ids");
    c.stop_token_ids.clear();
    for (size_t i = 0; i < v.size(); ++i) c.stop_token_ids.insert(as_id(where + "[" + std::to_string(i) + "]", v[i]));
}

void set_stop_strings(GenerationConfig& c, const nlohmann::json& given, const std::string& where) {
    const nlohmann::json v = given.is_string() ? nlohmann::json::array({given}) : given;
    if (!v.is_array()) wrong_type(where, v, "a string or a list of strings");
    c.stop_strings.clear();
    for (const auto& s : v) {
        if (!s.is_string() || s.get_ref<const std::string&>().empty())
            wrong_type(where, v, "a list of non-empty strings");
        c.stop_strings.insert(s.get<std::string>());
    }
}

const std::map<std::string, Setter>& setters() {
    static const std::map<std::string, Setter> table = {
        {"max_new_tokens", member(&GenerationConfig::max_new_tokens, as_count)},
        {"max_length", member(&GenerationConfig::max_length, as_count)},
        {"min_new_tokens", member(&GenerationConfig::min_new_tokens, as_count)},
        {"ignore_eos", member(&GenerationConfig::ignore_eos, as_bool)},
        {"eos_token_id", set_eos},
        {"stop_token_ids", set_stop_ids},
        {"stop_strings", set_stop_strings},
        {"include_stop_str_in_output", member(&GenerationConfig::include_stop_str_in_output, as_bool)},
        {"do_sample", member(&GenerationConfig::do_sample, as_bool)},
        {"temperature", member(&GenerationConfig::temperature, as_float)},
        {"top_k", member(&GenerationConfig::top_k, as_count)},
        {"top_p", member(&GenerationConfig::top_p, as_float)},
        {"repetition_penalty", member(&GenerationConfig::repetition_penalty, as_float)},
        {"presence_penalty", member(&GenerationConfig::presence_penalty, as_float)},
        {"frequency_penalty", member(&GenerationConfig::frequency_penalty, as_float)},
        {"rng_seed", [](GenerationConfig& c, const nlohmann::json& v, const std::string& where) {
             c.rng_seed = static_cast<uint64_t>(as_count(where, v));
         }},
        {"num_return_sequences", member(&GenerationConfig::num_return_sequences, as_count)},
        {"num_beams", member(&GenerationConfig::num_beams, as_count)},
    };
    return table;
}

}  // namespace

void GenerationConfig::validate() const {
    auto fail = [](const std::string& what) { throw GenerationConfigError("generation config: " + what); };
    if (max_new_tokens == 0) fail("max_new_tokens is 0; ask for at least one new token");
    if (min_new_tokens > max_new_tokens && max_new_tokens != std::numeric_limits<size_t>::max())
        fail("min_new_tokens (" + std::to_string(min_new_tokens) + ") is more than max_new_tokens (" +
             std::to_string(max_new_tokens) + ")");
    if (num_beams != 1) fail("num_beams is " + std::to_string(num_beams) + "; beam search is not implemented, use 1");
    if (num_return_sequences != 1)
        fail("num_return_sequences is " + std::to_string(num_return_sequences) + "; only 1 is implemented");
    if (do_sample) {
        if (!(temperature > 0) || !std::isfinite(temperature))
            fail("temperature is " + std::to_string(temperature) + "; sampling needs a temperature > 0");
        if (!(top_p > 0 && top_p <= 1)) fail("top_p is " + std::to_string(top_p) + "; it must be in (0, 1]");
    }
    if (!(repetition_penalty > 0) || !std::isfinite(repetition_penalty))
        fail("repetition_penalty is " + std::to_string(repetition_penalty) + "; it must be > 0 (1: none)");
    for (const std::string& stop : stop_strings)
        if (stop.empty()) fail("a stop string is empty; every stop string needs at least one character");
    if (!std::isfinite(presence_penalty) || !std::isfinite(frequency_penalty))
        fail("presence_penalty and frequency_penalty must be finite");
}

void GenerationConfig::update(const AnyMap& parameters, const std::string& source) {
    GenerationConfig updated = *this;  // all or nothing: a bad parameter leaves this config as it was
    for (const auto& [key, value] : parameters) {
        auto it = setters().find(key);
        if (it == setters().end()) {
            std::string known;
            for (const auto& entry : setters()) known += (known.empty() ? "" : ", ") + entry.first;
            throw GenerationConfigError(source + ": unknown generation parameter '" + key + "'; known: " + known);
        }
        it->second(updated, value, source + ": " + key);
    }
    *this = std::move(updated);
}

GenerationConfig GenerationConfig::from_folder(const std::filesystem::path& folder) {
    GenerationConfig config;
    const std::filesystem::path file = folder / "generation_config.json";
    if (!std::filesystem::exists(file)) return config;
    std::ifstream in(file);
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw GenerationConfigError(file.string() + " is not valid JSON: " + e.what());
    }
    if (!json.is_object()) throw GenerationConfigError(file.string() + " must hold a JSON object");
    AnyMap known;
    for (const auto& [key, value] : json.items())
        if (setters().count(key)) known[key] = value;
    config.update(known, file.string());
    return config;
}

}  // namespace mosaic::genai
