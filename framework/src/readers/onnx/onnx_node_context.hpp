// What a translator sees of one ONNX node: its inputs as Mosaic outputs, its attributes, and a
// builder that adds Mosaic ops to the model (each inferred at once, so shapes, element types and
// build-time values of everything built so far are known).
//
// Writing a translator (one file per op group in onnx/translators/, registered from the file itself):
//
//   namespace mosaic::onnx_import {
//   namespace {
//   Outputs relu(NodeContext& ctx) { return {ctx.op("Relu", {ctx.input(0)})}; }
//   const TranslatorRegistration reg({{"Relu", relu}, {"Elu", elu}});
//   }
//   }
//
// A translator returns one Output per ONNX output it produces (optional trailing outputs may be
// left out). It reports what it cannot do with ctx.unsupported("...") and malformed nodes with
// ctx.fail("..."); both name the model, the node, the op type and the opset.
//
// Checking translators: `mosaic conformance -d REFERENCE /usr/share/libonnx-testdata/data/node/test_relu*`
// runs ONNX's backend tests (build the `mosaic` target; see tools/mosaic/cmd_conformance.cpp).
#pragma once

#include "ops/op_schema.hpp"

#include <mosaic/model.hpp>

#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace mosaic {
class ShapeInference;
}

namespace mosaic::onnx_import {

using Outputs = std::vector<Output>;

// The axes first, first + 1, ..., end - 1 (spatial axes, reduction axes...).
inline std::vector<int64_t> range_from(int64_t first, int64_t end) {
    std::vector<int64_t> v;
    for (int64_t i = first; i < end; ++i) v.push_back(i);
    return v;
}

// Builds Mosaic nodes into a model, inferring each at once.
class GraphBuilder {
public:
    GraphBuilder(Model& model, ShapeInference& inference) : model_(model), inference_(inference) {}

    // Adds an op (latest version of `type` unless `version` is given) named `name` (made unique).
    Output op(const std::string& type, std::vector<Output> inputs, Attributes attrs, std::string name,
              std::string version = "");
    Output constant(ElementType type, const Shape& shape, std::shared_ptr<const Buffer> data, std::string name);
    Output parameter(std::string name, ElementType type, const Shape& shape);
    Output result(Output source, std::string name);
    // A control-flow node holding `bodies` (Model::add_control_flow) named `name`, which
    // unique_name() gave; returns the node.
    Node* control_flow(const std::string& type, const std::string& version, std::vector<Output> inputs, std::vector<std::shared_ptr<Model>> bodies,
                       Attributes attrs, std::string name);
    const ops::KnownValue* value(const Output& o) const;
    std::string unique_name(const std::string& base);
    Model& model() { return model_; }
    // Loop and Scan body nodes unrolled so far in this model (control_flow.cpp bounds their sum).
    int64_t& unrolled_nodes() { return unrolled_nodes_; }

private:
    Output infer(Node* node);

    Model& model_;
    ShapeInference& inference_;
    std::set<std::string> used_names_;
    std::map<std::string, int> next_suffix_;
    int64_t unrolled_nodes_ = 0;
};

class NodeContext {
public:
    NodeContext(GraphBuilder& builder, const ::onnx::NodeProto& node, std::string name, int64_t opset,
                std::vector<Output> inputs, std::string model_path, const std::string& base_dir);

    const ::onnx::NodeProto& proto() const { return node_; }
    const std::string& op_type() const { return node_.op_type(); }
    // The node's name (unique in the model; generated when the ONNX node has none).
    const std::string& name() const { return name_; }
    // The opset version of the node's domain that the model imports.
    int64_t opset() const { return opset_; }
    const std::string& base_dir() const { return base_dir_; }

    // Inputs. ONNX marks an omitted optional input by an empty name; has_input() is false for it.
    size_t input_count() const { return inputs_.size(); }
    bool has_input(size_t i) const { return i < inputs_.size() && inputs_[i].node != nullptr; }
    Output input(size_t i) const;  // fails naming the node when the input is absent
    size_t output_count() const { return static_cast<size_t>(node_.output_size()); }
    // Whether ONNX output i is used by name (optional outputs have an empty name).
    bool has_output(size_t i) const { return i < output_count() && !node_.output(static_cast<int>(i)).empty(); }

    // Attributes. The getters with a fallback return it when the attribute is absent.
    bool has_attr(const std::string& name) const { return attr(name) != nullptr; }
    int64_t attr_int(const std::string& name) const;
    int64_t attr_int(const std::string& name, int64_t fallback) const;
    double attr_float(const std::string& name, double fallback) const;
    std::string attr_string(const std::string& name, const std::string& fallback) const;
    std::vector<int64_t> attr_ints(const std::string& name, std::vector<int64_t> fallback = {}) const;
    std::vector<double> attr_floats(const std::string& name, std::vector<double> fallback = {}) const;
    const ::onnx::TensorProto* attr_tensor(const std::string& name) const;
    const ::onnx::GraphProto* attr_graph(const std::string& name) const;
    const ::onnx::AttributeProto* attr(const std::string& name) const;

    // Building. Ops are named "<node name>/<type>" (made unique); the node producing the ONNX
    // node's first output is renamed to the node's name afterwards, so profiling names match ONNX.
    Output op(const std::string& type, std::vector<Output> inputs, Attributes attrs = {},
              const std::string& version = "");
    Output constant(ElementType type, const Shape& shape, std::shared_ptr<const Buffer> data);
    // A control-flow node (a run-time If) named after the ONNX node; returns its outputs.
    Outputs control_flow(const std::string& type, const std::string& version, std::vector<Output> inputs, std::vector<std::shared_ptr<Model>> bodies,
                         Attributes attrs);
    Output const_i64(const std::vector<int64_t>& values, Shape shape);
    Output const_i64(const std::vector<int64_t>& values) { return const_i64(values, {static_cast<int64_t>(values.size())}); }
    Output scalar_i64(int64_t value) { return const_i64({value}, {}); }
    // A constant of element type `type` (any numeric type) holding `values` in `shape`.
    Output const_of(ElementType type, const std::vector<double>& values, Shape shape);
    Output scalar_of(ElementType type, double value) { return const_of(type, {value}, {}); }
    // Helpers used by many translators.
    Output convert(Output x, ElementType type);     // Convert, or x itself when already of `type`
    Output shape_of(Output x, ElementType type = ElementType::i64);

    ElementType type(const Output& o) const { return o.get_element_type(); }
    const Shape& shape(const Output& o) const { return o.get_partial_shape(); }
    int64_t rank(const Output& o) const { return static_cast<int64_t>(o.get_partial_shape().size()); }
    // The value of `o` when known at build time (a Constant or folded from constants), else nullptr.
    const ops::KnownValue* value(const Output& o) const { return builder_.value(o); }
    // The integer values of input i, which must be known at build time (else fails naming `what`).
    std::vector<int64_t> const_ints(size_t input, const std::string& what) const;
    std::vector<double> const_floats(size_t input, const std::string& what) const;

    [[noreturn]] void fail(const std::string& message) const;         // malformed node: ModelError
    [[noreturn]] void unsupported(const std::string& message) const;  // cannot translate: UnsupportedError
    std::string where() const;  // "ONNX node 'n' (Op, opset 13) in 'model.onnx'"

    GraphBuilder& builder() { return builder_; }

private:
    GraphBuilder& builder_;
    const ::onnx::NodeProto& node_;
    std::string name_;
    int64_t opset_;
    std::vector<Output> inputs_;
    std::string model_path_;
    std::string base_dir_;
};

using Translator = std::function<Outputs(NodeContext&)>;

// Registers translators for ONNX ops of the default domain ("" / "ai.onnx"), or of `domain` (ONNX
// Runtime's "com.microsoft" contrib ops, which its model builders write), from a static object in
// each translators/*.cpp file. A translator handles every opset of its op (ctx.opset() tells).
class TranslatorRegistration {
public:
    TranslatorRegistration(std::initializer_list<std::pair<const char*, Translator>> entries);
    TranslatorRegistration(const std::string& domain, std::initializer_list<std::pair<const char*, Translator>> entries);
};

// The translator of an op type of a domain ("" for the default), or nullptr.
const Translator* find_translator(const std::string& domain, const std::string& op_type);
// Why a node of `domain` and `op_type` has no translator: the sentence for ctx.unsupported().
std::string untranslated_reason(const std::string& domain, const std::string& op_type);
std::vector<std::string> translated_op_types();

}  // namespace mosaic::onnx_import
