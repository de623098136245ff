#include "readers/onnx/onnx_node_context.hpp"

#include "readers/onnx/onnx_tensor.hpp"
#include "graph/shape_inference.hpp"

#include <mosaic/onnx.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>

namespace mosaic::onnx_import {

namespace {

std::map<std::string, Translator>& translators() {
    static std::map<std::string, Translator> table;
    return table;
}

std::string latest_version(const std::string& type) {
    std::string version = ops::OpRegistry::instance().latest_version(type);
    if (version.empty()) throw ModelError("ONNX translation uses an op type '" + type + "' that Mosaic lacks");
    return version;
}

// False, storing nothing, where `v` has no value in T: an integer type given NaN or a value past its
// range (an attribute's alpha of 1e19 for an int8 input), which a plain cast leaves undefined.
template <typename T>
bool store(std::vector<uint8_t>& bytes, size_t i, double v) {
    if constexpr (std::is_integral_v<T>) {
        // Strict bounds one past each end: exact for the narrow types, and for 64 bits (where the
        // ends round to powers of two) the only loss is INT64_MIN itself.
        if (!(v > static_cast<double>(std::numeric_limits<T>::lowest()) - 1.0 &&
              v < static_cast<double>(std::numeric_limits<T>::max()) + 1.0))
            return false;
    }
    T x = static_cast<T>(v);
    std::memcpy(bytes.data() + i * sizeof(T), &x, sizeof(T));
    return true;
}

}  // namespace

// --- GraphBuilder ---------------------------------------------------------------------------

std::string GraphBuilder::unique_name(const std::string& base) {
    std::string name = base;
    if (used_names_.count(name)) {
        int& suffix = next_suffix_[base];
        do name = base + "_" + std::to_string(++suffix);
        while (used_names_.count(name));
    }
    used_names_.insert(name);
    return name;
}

Output GraphBuilder::infer(Node* node) {
    try {
        inference_.apply(*node);
    } catch (...) {
        model_.remove_node(node);
        throw;
    }
    return node->output(0);
}

Output GraphBuilder::op(const std::string& type, std::vector<Output> inputs, Attributes attrs, std::string name,
                        std::string version) {
    if (version.empty()) version = latest_version(type);
    return infer(model_.add_node(type, version, std::move(inputs), std::move(attrs), unique_name(name)));
}

Node* GraphBuilder::control_flow(const std::string& type, const std::string& version, std::vector<Output> inputs,
                                 std::vector<std::shared_ptr<Model>> bodies, Attributes attrs, std::string name) {
    // The name is the ONNX node's own, made unique when its translation began.
    Node* node = model_.add_control_flow(type, version, std::move(inputs), std::move(bodies), std::move(attrs),
                                         std::move(name));
    infer(node);
    return node;
}

Output GraphBuilder::constant(ElementType type, const Shape& shape, std::shared_ptr<const Buffer> data,
                              std::string name) {
    return infer(model_.add_constant(type, shape, std::move(data), unique_name(name)));
}

Output GraphBuilder::parameter(std::string name, ElementType type, const Shape& shape) {
    return infer(model_.add_parameter(unique_name(name), type, shape));
}

Output GraphBuilder::result(Output source, std::string name) {
    return infer(model_.add_result(source, unique_name(name)));
}

const ops::KnownValue* GraphBuilder::value(const Output& o) const { return inference_.known_value(o); }

// --- NodeContext ----------------------------------------------------------------------------

NodeContext::NodeContext(GraphBuilder& builder, const ::onnx::NodeProto& node, std::string name, int64_t opset,
                         std::vector<Output> inputs, std::string model_path, const std::string& base_dir)
    : builder_(builder), node_(node), name_(std::move(name)), opset_(opset), inputs_(std::move(inputs)),
      model_path_(std::move(model_path)), base_dir_(base_dir) {}

std::string NodeContext::where() const {
    return "ONNX node '" + name_ + "' (" + node_.op_type() + ", opset " + std::to_string(opset_) + ") in '" +
           model_path_ + "'";
}

void NodeContext::fail(const std::string& message) const { throw ModelError(where() + ": " + message); }

void NodeContext::unsupported(const std::string& message) const {
    throw onnx::UnsupportedError(where() + ": " + message);
}

Output NodeContext::input(size_t i) const {
    if (!has_input(i))
        fail("input " + std::to_string(i) + " is required but " +
             (i < inputs_.size() ? std::string("empty") : "missing (the node has " + std::to_string(inputs_.size()) +
                                                               " inputs)"));
    return inputs_[i];
}

const ::onnx::AttributeProto* NodeContext::attr(const std::string& name) const {
    for (const auto& a : node_.attribute())
        if (a.name() == name) return &a;
    return nullptr;
}

int64_t NodeContext::attr_int(const std::string& name) const {
    const auto* a = attr(name);
    if (!a) fail("attribute '" + name + "' is required");
    return a->i();
}

int64_t NodeContext::attr_int(const std::string& name, int64_t fallback) const {
    const auto* a = attr(name);
    return a ? a->i() : fallback;
}

double NodeContext::attr_float(const std::string& name, double fallback) const {
    const auto* a = attr(name);
    return a ? static_cast<double>(a->f()) : fallback;
}

std::string NodeContext::attr_string(const std::string& name, const std::string& fallback) const {
    const auto* a = attr(name);
    return a ? a->s() : fallback;
}

std::vector<int64_t> NodeContext::attr_ints(const std::string& name, std::vector<int64_t> fallback) const {
    const auto* a = attr(name);
    return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : fallback;
}

std::vector<double> NodeContext::attr_floats(const std::string& name, std::vector<double> fallback) const {
    const auto* a = attr(name);
    return a ? std::vector<double>(a->floats().begin(), a->floats().end()) : fallback;
}

const ::onnx::TensorProto* NodeContext::attr_tensor(const std::string& name) const {
    const auto* a = attr(name);
    return a && a->has_t() ? &a->t() : nullptr;
}

const ::onnx::GraphProto* NodeContext::attr_graph(const std::string& name) const {
    const auto* a = attr(name);
    return a && a->has_g() ? &a->g() : nullptr;
}

Output NodeContext::op(const std::string& type, std::vector<Output> inputs, Attributes attrs,
                       const std::string& version) {
    try {
        return builder_.op(type, std::move(inputs), std::move(attrs), name_ + "/" + type, version);
    } catch (const onnx::UnsupportedError&) {
        throw;
    } catch (const ModelError& e) {
        fail(e.what());
    }
}

Outputs NodeContext::control_flow(const std::string& type, const std::string& version, std::vector<Output> inputs,
                                  std::vector<std::shared_ptr<Model>> bodies, Attributes attrs) {
    Node* node = nullptr;
    try {
        node = builder_.control_flow(type, version, std::move(inputs), std::move(bodies), std::move(attrs), name_);
    } catch (const ModelError& e) {
        fail(e.what());
    }
    Outputs outs;
    for (size_t i = 0; i < node->output_count(); ++i) outs.push_back(node->output(i));
    return outs;
}

Output NodeContext::constant(ElementType type, const Shape& shape, std::shared_ptr<const Buffer> data) {
    return builder_.constant(type, shape, std::move(data), name_ + "/Constant");
}

Output NodeContext::const_i64(const std::vector<int64_t>& values, Shape shape) {
    return constant(ElementType::i64, shape, Buffer::from_vector(values));
}

Output NodeContext::const_of(ElementType type, const std::vector<double>& values, Shape shape) {
    if (static_cast<int64_t>(values.size()) != shape_size(shape))
        fail("internal: constant values do not fill shape " + to_string(shape));
    // f16/bf16 constants are made as f32 and converted, so one conversion routine serves all.
    const ElementType stored = (type == ElementType::f16 || type == ElementType::bf16) ? ElementType::f32 : type;
    std::vector<uint8_t> bytes(values.size() * element_size(stored));
    for (size_t i = 0; i < values.size(); ++i) {
        bool stored_ok = true;
        switch (stored) {
            case ElementType::f32: stored_ok = store<float>(bytes, i, values[i]); break;
            case ElementType::f64: stored_ok = store<double>(bytes, i, values[i]); break;
            case ElementType::i8: stored_ok = store<int8_t>(bytes, i, values[i]); break;
            case ElementType::u8: stored_ok = store<uint8_t>(bytes, i, values[i]); break;
            case ElementType::boolean: stored_ok = store<uint8_t>(bytes, i, values[i] != 0 ? 1 : 0); break;
            case ElementType::i16: stored_ok = store<int16_t>(bytes, i, values[i]); break;
            case ElementType::u16: stored_ok = store<uint16_t>(bytes, i, values[i]); break;
            case ElementType::i32: stored_ok = store<int32_t>(bytes, i, values[i]); break;
            case ElementType::u32: stored_ok = store<uint32_t>(bytes, i, values[i]); break;
            case ElementType::i64: stored_ok = store<int64_t>(bytes, i, values[i]); break;
            case ElementType::u64: stored_ok = store<uint64_t>(bytes, i, values[i]); break;
            default: fail(std::string("internal: no constants of type ") + to_string(type));
        }
        if (!stored_ok) {
            std::ostringstream value;
            value << values[i];
            fail("needs the value " + value.str() + " as " + to_string(type) +
                 " (its input's element type), which cannot hold it; give the attribute a value within " +
                 to_string(type) + "'s range, or the input a floating-point type");
        }
    }
    Output c = constant(stored, shape, Buffer::copy_of(bytes.data(), bytes.size()));
    return stored == type ? c : convert(c, type);
}

Output NodeContext::convert(Output x, ElementType type) {
    if (x.get_element_type() == type) return x;
    return op("Convert", {x}, {{"destination_type", to_string(type)}});
}

Output NodeContext::shape_of(Output x, ElementType type) {
    return op("ShapeOf", {x}, {{"output_type", to_string(type)}});
}

std::vector<int64_t> NodeContext::const_ints(size_t i, const std::string& what) const {
    const ops::KnownValue* v = value(input(i));
    if (!v)
        unsupported("input " + std::to_string(i) + " (" + what +
                    ") must be known when the model is read (a constant or computed from constants); "
                    "give the input's value with ReadOptions::input_values");
    try {
        return v->as_ints();
    } catch (const std::range_error& e) {
        fail("input " + std::to_string(i) + " (" + what + "): " + e.what());
    }
}

std::vector<double> NodeContext::const_floats(size_t i, const std::string& what) const {
    const ops::KnownValue* v = value(input(i));
    if (!v)
        unsupported("input " + std::to_string(i) + " (" + what +
                    ") must be known when the model is read (a constant or computed from constants); "
                    "give the input's value with ReadOptions::input_values");
    return v->as_floats();
}

// --- registry -------------------------------------------------------------------------------

namespace {

// "GroupQueryAttention" of "com.microsoft" is "com.microsoft.GroupQueryAttention"; the default
// domain's ops are their bare type.
std::string translator_key(const std::string& domain, const std::string& op_type) {
    const bool default_domain = domain.empty() || domain == "ai.onnx";
    return default_domain ? op_type : domain + "." + op_type;
}

}  // namespace

TranslatorRegistration::TranslatorRegistration(std::initializer_list<std::pair<const char*, Translator>> entries)
    : TranslatorRegistration("", entries) {}

TranslatorRegistration::TranslatorRegistration(const std::string& domain,
                                               std::initializer_list<std::pair<const char*, Translator>> entries) {
    for (const auto& [type, fn] : entries) translators()[translator_key(domain, type)] = fn;
}

const Translator* find_translator(const std::string& domain, const std::string& op_type) {
    auto it = translators().find(translator_key(domain, op_type));
    return it == translators().end() ? nullptr : &it->second;
}

std::string untranslated_reason(const std::string& domain, const std::string& op_type) {
    if (domain.empty() || domain == "ai.onnx")
        return "op type '" + op_type + "' is not supported (see the README's ONNX operator table)";
    std::string known;
    const std::string prefix = domain + ".";
    for (const auto& [key, fn] : translators())
        if (key.rfind(prefix, 0) == 0) known += (known.empty() ? "" : ", ") + key.substr(prefix.size());
    if (known.empty())
        return "domain '" + domain + "' is not supported; Mosaic translates ops of the default ONNX domain and " +
               "ONNX Runtime's com.microsoft ops that its model builders write";
    return "op type '" + op_type + "' of domain '" + domain + "' is not supported; of that domain Mosaic translates " + known;
}

std::vector<std::string> translated_op_types() {
    std::vector<std::string> out;
    for (const auto& [type, fn] : translators()) out.push_back(type);
    return out;
}

}  // namespace mosaic::onnx_import
