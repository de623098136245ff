#include "graph/shape_inference.hpp"

#include "graph/control_flow.hpp"

#include <mosaic/reference/kernels.hpp>

namespace mosaic {

namespace {

// Folding is for shape arithmetic; larger results are left to the devices.
constexpr int64_t kMaxFoldedElements = 4096;

[[noreturn]] void fail(const Node& node, const std::string& message) {
    throw ModelError("node '" + node.get_friendly_name() + "' (" + node.type_and_version() + "): " + message);
}

}  // namespace

std::string shape_attr_text(const Shape& shape) {
    std::string out;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) out += ",";
        out += shape[i] < 0 ? std::string("?") : std::to_string(shape[i]);
    }
    return out;
}

const ops::KnownValue* ShapeInference::known_value(const Output& output) const {
    auto it = values_.find({output.node, output.index});
    return it == values_.end() ? nullptr : it->second.get();
}

std::vector<ops::PortInfo> ShapeInference::infer(const Node& node) {
    // Control flow infers through its bodies; it has no schema and folds nothing.
    if (is_control_flow(node)) {
        for (size_t i = 0; i < node.input_count(); ++i)
            if (!node.input(i).node) fail(node, "input " + std::to_string(i) + " is not connected");
        return infer_control_flow(node, node.get_type_name() == "If" ? known_value(node.input(0)) : nullptr);
    }
    const auto& registry = ops::OpRegistry::instance();
    const ops::OpSchema* schema = registry.find(node.get_type_name(), node.version());
    if (!schema) {
        if (!registry.has_type(node.get_type_name()))
            fail(node, "unknown op type '" + node.get_type_name() + "'; Mosaic's op set does not have it (see the README's op table)");
        std::string known;
        for (const auto& v : registry.versions_of(node.get_type_name())) known += (known.empty() ? "" : ", ") + v;
        fail(node, "op '" + node.get_type_name() + "' has no version '" + node.version() + "' (known versions: " + known + ")");
    }
    if (node.input_count() < schema->min_inputs || node.input_count() > schema->max_inputs)
        fail(node, "has " + std::to_string(node.input_count()) + " inputs, expected " +
                       (schema->min_inputs == schema->max_inputs
                            ? std::to_string(schema->min_inputs)
                            : std::to_string(schema->min_inputs) + " to " + std::to_string(schema->max_inputs)));

    std::vector<ops::PortInfo> inputs;
    std::vector<const ops::KnownValue*> values;
    for (size_t i = 0; i < node.input_count(); ++i) {
        const Output& src = node.input(i);
        if (!src.node) fail(node, "input " + std::to_string(i) + " is not connected");
        if (src.index >= src.node->output_count())
            fail(node, "input " + std::to_string(i) + " is connected to output " + std::to_string(src.index) + " of '" +
                           src.node->get_friendly_name() + "', which has " + std::to_string(src.node->output_count()) + " outputs");
        inputs.push_back({src.get_element_type(), src.get_partial_shape()});
        values.push_back(known_value(src));
    }

    std::vector<ops::PortInfo> outputs;
    try {
        ops::InferContext ctx(node.attrs(), inputs, values);
        outputs = schema->infer(ctx);
    } catch (const ModelError&) {
        throw;
    } catch (const std::exception& e) {
        fail(node, e.what());
    }

    for (size_t i = 0; i < outputs.size(); ++i) {
        int64_t bytes = 0;
        if (is_static(outputs[i].shape) && !checked_byte_size(outputs[i].shape, outputs[i].type, bytes))
            fail(node, "output " + std::to_string(i) + " would have shape " + to_string(outputs[i].shape) +
                           ", whose size overflows; the model is malformed");
    }

    if (node.is_constant()) {
        const auto& data = node.constant_data();
        const size_t needed = static_cast<size_t>(shape_size(outputs[0].shape)) * element_size(outputs[0].type);
        if (!data) fail(node, "constant has no data");
        if (data->size() != needed)
            fail(node, "constant holds " + std::to_string(data->size()) + " bytes but " + to_string(outputs[0].type) +
                           " " + to_string(outputs[0].shape) + " needs " + std::to_string(needed));
        values_[{&node, 0}] = std::make_shared<ops::KnownValue>(
            ops::KnownValue{outputs[0].type, outputs[0].shape, data->data(), std::shared_ptr<const void>(data, data->data())});
    } else {
        fold(node, *schema, outputs, values);
    }
    return outputs;
}

void ShapeInference::apply(Node& node) {
    std::vector<ops::PortInfo> outputs = infer(node);
    node.outputs_.resize(outputs.size());
    for (size_t i = 0; i < outputs.size(); ++i) {
        node.outputs_[i].type = outputs[i].type;
        node.outputs_[i].shape = std::move(outputs[i].shape);
    }
}

// torch.onnx guards a squeeze with `x.shape[1] == 1`, an If on a Gather from a ShapeOf: with a
// dynamic batch the whole shape is unknown, but the dimensions gathered are static, and knowing
// them decides the If when the model is read (its branches may then differ in rank).
bool ShapeInference::fold_static_dims(const Node& node, const std::vector<ops::PortInfo>& outputs,
                                      const std::vector<const ops::KnownValue*>& input_values) {
    if (node.get_type_name() != "Gather" || node.input_count() != 3 || outputs.size() != 1) return false;
    const Node* shape_of = node.input(0).node;
    if (!shape_of || shape_of->get_type_name() != "ShapeOf" || !input_values[1] || !input_values[2]) return false;
    if (node.attrs().get_int("batch_dims", 0) != 0 || input_values[2]->as_ints() != std::vector<int64_t>{0}) return false;
    const Shape& dims = shape_of->input(0).get_partial_shape();
    const auto rank = static_cast<int64_t>(dims.size());
    const ElementType type = outputs[0].type;
    if ((type != ElementType::i64 && type != ElementType::i32) || !is_static(outputs[0].shape)) return false;
    std::vector<int64_t> gathered;
    for (int64_t i : input_values[1]->as_ints()) {
        if (i < -rank || i >= rank) return false;  // the schema or the kernel reports it
        const int64_t d = dims[static_cast<size_t>(i < 0 ? i + rank : i)];
        if (d < 0) return false;
        gathered.push_back(d);
    }
    if (static_cast<int64_t>(gathered.size()) != shape_size(outputs[0].shape)) return false;
    auto buffer = std::make_shared<std::vector<uint8_t>>(gathered.size() * element_size(type));
    for (size_t k = 0; k < gathered.size(); ++k) {
        if (type == ElementType::i64) reinterpret_cast<int64_t*>(buffer->data())[k] = gathered[k];
        else reinterpret_cast<int32_t*>(buffer->data())[k] = static_cast<int32_t>(gathered[k]);
    }
    values_[{&node, 0}] = std::make_shared<ops::KnownValue>(ops::KnownValue{type, outputs[0].shape, buffer->data(), buffer});
    return true;
}

void ShapeInference::fold(const Node& node, const ops::OpSchema& schema, const std::vector<ops::PortInfo>& outputs,
                          const std::vector<const ops::KnownValue*>& input_values) {
    if (!schema.foldable) return;
    if (!input_values[0] && fold_static_dims(node, outputs, input_values)) return;
    // ShapeOf needs only its input's shape; everything else needs every input's value.
    const bool shape_only = node.get_type_name() == "ShapeOf";
    for (size_t i = 0; i < input_values.size(); ++i)
        if (!input_values[i] && !(shape_only && is_static(node.input(i).get_partial_shape()))) return;
    for (const auto& out : outputs)
        if (!is_static(out.shape) || shape_size(out.shape) > kMaxFoldedElements) return;
    if (!reference::find_kernel(node.get_type_name(), node.version())) return;

    reference::KernelArgs args{node.get_type_name(), node.version(), node.attrs(), {}, {}};
    for (size_t i = 0; i < node.input_count(); ++i)
        args.inputs.push_back({node.input(i).get_element_type(), node.input(i).get_partial_shape(),
                               input_values[i] ? input_values[i]->data : nullptr});
    std::vector<std::shared_ptr<std::vector<uint8_t>>> buffers;
    for (const auto& out : outputs) {
        buffers.push_back(std::make_shared<std::vector<uint8_t>>(
            static_cast<size_t>(shape_size(out.shape)) * element_size(out.type)));
        args.outputs.push_back({out.type, out.shape, buffers.back()->data()});
    }
    // Empty results are known without the kernel, whose loops over the other dimensions of a shape
    // such as [2147483647,0,3] can take seconds for nothing (a fuzzed Softmax: 3.4 s to read).
    bool empty = true;
    for (const auto& out : outputs) empty = empty && shape_size(out.shape) == 0;
    if (!empty) {
        try {
            reference::run_reference_kernel(args);
        } catch (const std::exception&) {
            return;  // not foldable after all; a device will report the problem when it runs the op
        }
    }
    for (size_t i = 0; i < outputs.size(); ++i)
        values_[{&node, i}] = std::make_shared<ops::KnownValue>(
            ops::KnownValue{outputs[i].type, outputs[i].shape, buffers[i]->data(), buffers[i]});
}

}  // namespace mosaic
