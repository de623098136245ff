#include "tokenizer/tokenizer_json.hpp"

#include "tokenizer/utf8.hpp"

#include <fstream>
#include <sstream>

namespace mosaic::genai::tokenizer {

json read_json_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TokenizerError(path.string() + ": cannot be opened (no such file, or not readable)");
    std::stringstream text;
    text << in.rdbuf();
    try {
        return json::parse(text.str());
    } catch (const json::exception& e) {
        // Not only parse_error: a number too large for a double (1e999) is out_of_range. nlohmann's
        // message says where: "parse error at line 3, column 7: ...".
        throw TokenizerError(path.string() + ": malformed JSON: " + e.what());
    }
}

bool JsonNode::has(const std::string& key) const {
    return value_->is_object() && value_->contains(key) && !(*value_)[key].is_null();
}

JsonNode JsonNode::operator[](const std::string& key) const {
    if (!value_->is_object()) fail("is not an object");
    const auto it = value_->find(key);
    if (it == value_->end()) JsonNode(*value_, file_, child_path(key)).fail("is missing");
    return JsonNode(*it, file_, child_path(key));
}

std::optional<JsonNode> JsonNode::find(const std::string& key) const {
    if (!has(key)) return std::nullopt;
    return (*this)[key];
}

JsonNode JsonNode::at(size_t index) const {
    if (!value_->is_array() || index >= value_->size()) fail("has no element " + std::to_string(index));
    return JsonNode((*value_)[index], file_, path_ + "[" + std::to_string(index) + "]");
}

size_t JsonNode::size() const {
    if (!value_->is_array()) fail("is not an array");
    return value_->size();
}

std::string JsonNode::string() const {
    if (!value_->is_string()) fail("is not a string");
    return value_->get<std::string>();
}

bool JsonNode::boolean() const {
    if (!value_->is_boolean()) fail("is not a boolean");
    return value_->get<bool>();
}

int64_t JsonNode::integer() const {
    if (!value_->is_number_integer()) fail("is not an integer");
    return value_->get<int64_t>();
}

double JsonNode::number() const {
    if (!value_->is_number()) fail("is not a number");
    return value_->get<double>();
}

std::string JsonNode::string_or(const std::string& key, const std::string& fallback) const {
    return has(key) ? (*this)[key].string() : fallback;
}

bool JsonNode::bool_or(const std::string& key, bool fallback) const {
    return has(key) ? (*this)[key].boolean() : fallback;
}

char32_t JsonNode::character() const {
    const std::string s = string();
    size_t i = 0;
    const char32_t cp = s.empty() ? 0 : next_code_point(s, i);
    if (s.empty() || i != s.size()) fail("\"" + s + "\" is not a single character");
    return cp;
}

void JsonNode::fail(const std::string& what) const {
    throw TokenizerError(file_ + ": " + (path_.empty() ? "(top level)" : path_) + " " + what);
}

void JsonNode::not_implemented(const std::string& kind) const {
    const JsonNode type = (*this)["type"];
    const std::string name = type.value().is_string() ? type.value().get<std::string>() : type.value().dump();
    type.fail("\"" + name + "\": this " + kind + " is not implemented by Mosaic's tokenizer");
}

}  // namespace mosaic::genai::tokenizer
