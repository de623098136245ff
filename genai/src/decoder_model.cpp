#include "decoder_model.hpp"

#include "last_position_logits.hpp"
#include "sliding_kv_cache.hpp"
#include "stateful_to_stateless.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace mosaic::genai {

namespace fs = std::filesystem;

namespace {

// `values` as a tensor of the port's integer type (exporters write i64; some IRs i32), [1, n]
// unless `shape` is given.
Tensor integers(ElementType type, const std::vector<int64_t>& values, const std::string& input, Shape shape = {}) {
    if (shape.empty()) shape = {1, static_cast<int64_t>(values.size())};
    Tensor t(type, shape);
    if (type == ElementType::i64) {
        std::copy(values.begin(), values.end(), t.data<int64_t>());
    } else if (type == ElementType::i32) {
        std::transform(values.begin(), values.end(), t.data<int32_t>(), [](int64_t v) { return static_cast<int32_t>(v); });
    } else {
        throw std::runtime_error("input '" + input + "' is of type " + to_string(type) + "; a decoder's " + input +
                                 " must be i64 or i32");
    }
    return t;
}

const PortDesc* find_input(const CompiledModel& compiled, const std::string& name) {
    for (const PortDesc& p : compiled.inputs())
        if (answers_to(p, name)) return &p;
    return nullptr;
}

// config.json's longest sequence, under the names the architectures give it.
std::optional<size_t> max_length_of(const fs::path& folder) {
    std::ifstream in(folder / "config.json");
    if (!in) return std::nullopt;
    const nlohmann::json config = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!config.is_object()) return std::nullopt;
    for (const char* key : {"max_position_embeddings", "n_positions", "max_sequence_length", "seq_length"})
        if (config.contains(key) && config[key].is_number_unsigned()) return config[key].get<size_t>();
    return std::nullopt;
}

bool has_past_inputs(const CompiledModel& compiled) {
    return std::any_of(compiled.inputs().begin(), compiled.inputs().end(),
                       [](const PortDesc& p) { return p.name.rfind("past_key_values.", 0) == 0; });
}

}  // namespace

bool answers_to(const PortDesc& port, const std::string& name) {
    return port.name == name || std::find(port.names.begin(), port.names.end(), name) != port.names.end();
}

DecoderModel::DecoderModel(fs::path file, CompiledModel compiled, std::optional<size_t> max_length)
    : file_(std::move(file)), compiled_(std::move(compiled)), request_(compiled_.create_infer_request()),
      max_length_(max_length), device_(compiled_.device()), logits_output_(decoder_logits_output(file_, compiled_)) {}

size_t decoder_logits_output(const fs::path& file, const CompiledModel& compiled) {
    std::optional<size_t> logits;
    for (size_t o = 0; o < compiled.outputs().size() && !logits; ++o)
        if (answers_to(compiled.outputs()[o], "logits")) logits = o;
    if (!logits)
        throw std::runtime_error(file.string() + ": the model has no output named 'logits'; a decoder LLM as " +
                                 "optimum exports it returns the next-token logits there");
    if (!find_input(compiled, "input_ids"))
        throw std::runtime_error(file.string() + ": the model has no input named 'input_ids'; a decoder LLM as " +
                                 "optimum exports it takes the token ids there");
    for (const PortDesc& p : compiled.inputs())
        if (!DecoderModel::is_sequence_input(p.name) && p.name.rfind("past_key_values.", 0) != 0)
            throw std::runtime_error(file.string() + ": the pipeline does not know how to feed input '" + p.name +
                                     "'; a decoder's inputs are input_ids, attention_mask, position_ids, beam_idx " +
                                     "and past_key_values.N.key/value");
    return *logits;
}

bool DecoderModel::is_sequence_input(const std::string& name) {
    return name == "input_ids" || name == "attention_mask" || name == "position_ids" || name == "beam_idx";
}

bool DecoderModel::has_input(const std::string& name) const { return find_input(compiled_, name) != nullptr; }

void DecoderModel::set_sequence_inputs(InferRequest& request, const std::vector<int64_t>& tokens, size_t first_position,
                                       const std::vector<int64_t>& mask) const {
    set_rows_inputs(compiled_, request, {tokens}, {first_position}, {mask});
}

void set_rows_inputs(const CompiledModel& compiled_, InferRequest& request, const std::vector<std::vector<int64_t>>& tokens,
                     const std::vector<size_t>& first_positions, const std::vector<std::vector<int64_t>>& masks) {
    const int64_t rows = static_cast<int64_t>(tokens.size());
    const int64_t n = static_cast<int64_t>(tokens.front().size()), mask_length = static_cast<int64_t>(masks.front().size());
    std::vector<int64_t> ids, positions, mask;
    for (size_t r = 0; r < tokens.size(); ++r) {
        ids.insert(ids.end(), tokens[r].begin(), tokens[r].end());
        for (int64_t i = 0; i < n; ++i) positions.push_back(static_cast<int64_t>(first_positions[r]) + i);
        mask.insert(mask.end(), masks[r].begin(), masks[r].end());
    }
    const PortDesc* input_ids = find_input(compiled_, "input_ids");
    request.set_tensor(input_ids->name, integers(input_ids->type, ids, input_ids->name, {rows, n}));
    if (const PortDesc* m = find_input(compiled_, "attention_mask"))
        request.set_tensor(m->name, integers(m->type, mask, m->name, {rows, mask_length}));
    if (const PortDesc* p = find_input(compiled_, "position_ids"))
        request.set_tensor(p->name, integers(p->type, positions, p->name, {rows, n}));
    if (const PortDesc* beam = find_input(compiled_, "beam_idx")) {
        // Each row keeps its own cache.
        std::vector<int64_t> own(tokens.size());
        for (size_t r = 0; r < own.size(); ++r) own[r] = static_cast<int64_t>(r);
        request.set_tensor(beam->name, integers(beam->type, own, beam->name, {rows}));
    }
}

std::vector<float> DecoderModel::last_logits(const InferRequest& request) const {
    return rows_logits(file_, request, logits_output_, 1).front();
}

std::vector<std::vector<float>> rows_logits(const fs::path& file_, const InferRequest& request, size_t logits_output,
                                            size_t rows) {
    const Tensor logits = request.get_output_tensor(logits_output);
    const Shape& s = logits.get_shape();
    if (logits.get_element_type() != ElementType::f32 || s.size() != 3 || s[0] != static_cast<int64_t>(rows) || s[1] < 1)
        throw std::runtime_error(file_.string() + ": the logits came out as " + to_string(logits.get_element_type()) +
                                 " " + to_string(s) + "; the pipeline reads f32 [" + std::to_string(rows) +
                                 ", length, vocab]");
    const size_t vocab = static_cast<size_t>(s[2]), length = static_cast<size_t>(s[1]);
    std::vector<std::vector<float>> out;
    for (size_t r = 0; r < rows; ++r) {
        const float* last = logits.data<float>() + (r * length + length - 1) * vocab;
        out.emplace_back(last, last + vocab);
    }
    return out;
}

std::vector<CachePair> pair_caches(const fs::path& file, const CompiledModel& compiled) {
    constexpr const char* kPast = "past_key_values.";
    constexpr const char* kPresent = "present.";
    const std::string where = file.string() + ": ";
    std::vector<CachePair> pairs;
    std::vector<bool> paired(compiled.outputs().size(), false);
    for (const PortDesc& in : compiled.inputs()) {
        if (in.name.rfind(kPast, 0) != 0) continue;
        const std::string present = kPresent + in.name.substr(std::string(kPast).size());
        CachePair pair{in.name, 0, in.type, in.shape, 0};
        bool found = false;
        for (size_t o = 0; o < compiled.outputs().size() && !found; ++o)
            if (answers_to(compiled.outputs()[o], present)) pair.present_output = o, paired[o] = found = true;
        if (!found)
            throw std::runtime_error(where + "input '" + in.name + "' has no output '" + present +
                                     "' to take its value from at the next step; the pipeline binds each present.N.* " +
                                     "output to the past_key_values.N.* input of the same N");
        const std::optional<size_t> axis = cache_positions_axis(pair.empty_shape);
        if (!axis)
            throw std::runtime_error(where + "input '" + in.name + "' has the shape " + in.bounds.to_string() +
                                     "; a past of the KV cache has one dynamic dimension besides the batch (the positions)");
        // Batch one row, no positions.
        pair.axis = *axis;
        if (pair.empty_shape[0] < 0) pair.empty_shape[0] = 1;
        pair.empty_shape[pair.axis] = 0;
        pairs.push_back(std::move(pair));
    }
    for (size_t o = 0; o < compiled.outputs().size(); ++o) {
        const std::string& name = compiled.outputs()[o].name;
        if (name.rfind(kPresent, 0) == 0 && !paired[o])
            throw std::runtime_error(where + "output '" + name + "' has no input '" + kPast +
                                     name.substr(std::string(kPresent).size()) + "' to feed at the next step");
    }
    return pairs;
}

void copy_positions(const Tensor& src, size_t src_at, Tensor& dst, size_t dst_at, size_t count, size_t axis) {
    const Shape& s = src.get_shape();
    const Shape& d = dst.get_shape();
    size_t outer = 1, inner = element_size(src.get_element_type());
    for (size_t k = 0; k < axis; ++k) outer *= static_cast<size_t>(s[k]);
    for (size_t k = axis + 1; k < s.size(); ++k) inner *= static_cast<size_t>(s[k]);
    const auto* from = static_cast<const char*>(src.data());
    auto* to = static_cast<char*>(dst.data());
    for (size_t o = 0; o < outer; ++o)
        std::memcpy(to + (o * static_cast<size_t>(d[axis]) + dst_at) * inner,
                    from + (o * static_cast<size_t>(s[axis]) + src_at) * inner, count * inner);
}

std::vector<int64_t> sliding_mask(size_t capacity, size_t visible) {
    std::vector<int64_t> mask(capacity, 0);
    std::fill(mask.end() - static_cast<long>(visible), mask.end(), 1);
    return mask;
}

std::optional<size_t> cache_positions_axis(const Shape& shape) {
    std::optional<size_t> axis;
    for (size_t d = 1; d < shape.size(); ++d) {
        if (shape[d] >= 0) continue;
        if (axis) return std::nullopt;
        axis = d;
    }
    return axis;
}

namespace {

constexpr const char* kPlanLengthKey = "KV_CACHE_PLAN_LENGTH";
constexpr const char* kWeightsInPlaceKey = "CPU_WEIGHTS_IN_PLACE";  // the CPU device's

// Marks each past_key_values.* input as the KV cache it is: state a device keeps for a request's
// life, planned at `length` positions (batch one), so that a device that splits the model by memory
// (HETERO's PIPELINE_PARALLEL) leaves room for the cache to grow and cuts every cache capacity the
// same way. Inputs of another layout are left as they are.
void mark_cache_inputs(Model& model, size_t length) {
    for (Node* p : model.get_parameters()) {
        const std::string name = Model::input_name(*p);  // the port's name, as the decoder binds it
        if (name.rfind("past_key_values.", 0) != 0 || p->output_count() != 1) continue;
        Shape planned = p->output_shape(0);
        const std::optional<size_t> axis = cache_positions_axis(planned);
        if (!axis) continue;
        if (planned[0] < 0) planned[0] = 1;
        planned[*axis] = static_cast<int64_t>(length);
        std::string text = "[";
        for (size_t d = 0; d < planned.size(); ++d) text += (d ? "," : "") + std::to_string(planned[d]);
        p->get_rt_info()["mosaic_variable"] = name;
        p->get_rt_info()["mosaic_plan_shape"] = text + "]";
    }
}

}  // namespace

DecoderSource read_decoder(Core& core, const fs::path& folder, AnyMap& properties) {
    if (!fs::is_directory(folder))
        throw std::runtime_error(folder.string() + " is not a folder; give the folder an exporter wrote (optimum-cli " +
                                 "export onnx or export openvino --task text-generation-with-past)");
    DecoderSource source;
    for (const char* name : {"openvino_model.xml", "model.onnx"})
        if (fs::exists(folder / name)) {
            source.file = folder / name;
            break;
        }
    if (source.file.empty())
        throw std::runtime_error(folder.string() + " holds no openvino_model.xml or model.onnx; export the model with " +
                                 "optimum-cli (--task text-generation-with-past)");
    source.model = core.read_model(source.file.string());
    try {
        stateful_to_stateless(*source.model);
        bypass_beam_reorder(*source.model);
        slice_logits_to_last_position(*source.model);
        source.sliding = slide_kv_cache(*source.model);
    } catch (const std::exception& e) {
        throw std::runtime_error(source.file.string() + ": " + e.what());
    }
    source.max_length = max_length_of(folder);
    // KV_CACHE_PLAN_LENGTH is the pipeline's, not a device's: the cache's planned length, by default
    // the model's longest sequence.
    std::optional<size_t> plan_length = source.max_length;
    if (auto it = properties.find(kPlanLengthKey); it != properties.end()) {
        const nlohmann::json value = it->second;
        if (!value.is_number_integer() || value.get<int64_t>() < 1 || value.get<int64_t>() > (int64_t{1} << 24))
            throw std::invalid_argument(std::string(kPlanLengthKey) + " must be a number of positions >= 1 (16,777,216 at "
                                        "most), got " + value.dump());
        plan_length = value.get<size_t>();
        properties.erase(it);
    }
    if (plan_length) mark_cache_inputs(*source.model, *plan_length);
    return source;
}

std::unique_ptr<DecoderModel> open_decoder(Core& core, const fs::path& folder, const std::string& device,
                                           const AnyMap& given) {
    AnyMap properties = given;
    DecoderSource source = read_decoder(core, folder, properties);
    // One sequence decodes one row at a time, where the weights as stored stream as fast as packed
    // ones (gemv.hpp): the CPU keeps one copy of them instead of two unless told otherwise
    // (ContinuousBatchingPipeline's rows run faster packed and keep the device's default).
    if (device == "CPU") properties.try_emplace(kWeightsInPlaceKey, true);
    CompiledModel compiled = core.compile_model(source.model, device, properties);
    if (has_past_inputs(compiled)) return make_past_present_decoder(source.file, std::move(compiled), source.max_length, source.sliding);
    return make_full_sequence_decoder(source.file, std::move(compiled), source.max_length);
}

}  // namespace mosaic::genai
