// The model: a graph of typed ops with OpenVINO opset names and semantics.
//
// A Model owns its nodes. Edges point from a node's input to another node's output port
// (Output). validate() checks the graph (dangling inputs, cycles, unknown ops) and runs type and
// shape inference on every node; models returned by read_model() and built with ModelBuilder are
// already validated. A Model is not safe to mutate from several threads; compiling takes a
// snapshot of what it needs, so a model may be edited after compile_model() returns.
#pragma once

#include <mosaic/export.hpp>

#include <mosaic/any.hpp>
#include <mosaic/attributes.hpp>
#include <mosaic/element_type.hpp>
#include <mosaic/partial_shape.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mosaic {

class Node;
class Model;
class ShapeInference;

// Thrown for an invalid model; the message names the node (friendly name, type and version).
class MOSAIC_API ModelError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Immutable bytes of a Constant. Either owned or a window into memory kept alive by `owner`
// (for instance a memory-mapped .bin), so weights are never copied when a model is read.
class MOSAIC_API Buffer {
public:
    static std::shared_ptr<const Buffer> copy_of(const void* data, size_t size);
    static std::shared_ptr<const Buffer> view(const void* data, size_t size, std::shared_ptr<const void> owner);
    template <typename T>
    static std::shared_ptr<const Buffer> from_vector(const std::vector<T>& v) {
        return copy_of(v.data(), v.size() * sizeof(T));
    }

    const void* data() const { return data_; }
    size_t size() const { return size_; }

private:
    const void* data_ = nullptr;
    size_t size_ = 0;
    std::shared_ptr<const void> owner_;
};

// An output port of a node (OpenVINO's ov::Output<ov::Node>). Model::inputs() are the Parameters'
// ports, Model::outputs() the Results'.
struct MOSAIC_API Output {
    Node* node = nullptr;
    size_t index = 0;

    Node* get_node() const { return node; }
    size_t get_index() const { return index; }
    ElementType get_element_type() const;
    // May hold dynamic dimensions (-1).
    const Shape& get_partial_shape() const;
    // Throws std::logic_error naming the port when a dimension is dynamic.
    const Shape& get_shape() const;
    // The port's tensor names; for a Parameter or a Result, the name applications use comes first
    // (Model::input_name / output_name), so get_any_name() never throws for model inputs/outputs.
    std::vector<std::string> get_names() const;
    // The first name; throws std::logic_error when the port has none.
    std::string get_any_name() const;
    bool operator==(const Output& o) const { return node == o.node && index == o.index; }
    bool operator!=(const Output& o) const { return !(*this == o); }
};

class MOSAIC_API Node {
public:
    // The op type, "Convolution".
    const std::string& get_type_name() const { return type_; }
    const std::string& version() const { return version_; }
    // "Convolution-opset1", used in messages.
    std::string type_and_version() const { return type_ + "-" + version_; }

    // The friendly name: unique within a model, used by profiling, affinity maps and messages.
    const std::string& get_friendly_name() const { return name_; }
    void set_friendly_name(std::string name) { name_ = std::move(name); }

    // Unique within the model, never 0. The IR reader maps layer id L to node id L + 1 (and the
    // writer back), so IR ids survive a round trip.
    uint64_t id() const { return id_; }

    Attributes& attrs() { return attrs_; }
    const Attributes& attrs() const { return attrs_; }

    // Per-op runtime information, e.g. "affinity" -> "GPU". Written to and read from IR rt_info.
    RTMap& get_rt_info() { return rt_info_; }
    const RTMap& get_rt_info() const { return rt_info_; }

    size_t input_count() const { return inputs_.size(); }
    const Output& input(size_t i) const { return inputs_.at(i); }
    const std::vector<Output>& inputs() const { return inputs_; }
    void set_input(size_t i, Output source);

    // Output ports; their types and shapes are set by Model::validate().
    size_t output_count() const { return outputs_.size(); }
    Output output(size_t i) { return {this, i}; }
    ElementType output_type(size_t i) const { return outputs_.at(i).type; }
    const Shape& output_shape(size_t i) const { return outputs_.at(i).shape; }
    // Tensor names of an output port (IR v11 port `names`); may be empty.
    const std::vector<std::string>& output_names(size_t i) const { return outputs_.at(i).names; }
    void set_output_names(size_t i, std::vector<std::string> names);

    // Constant nodes: the data, laid out in the element type and shape of output 0.
    const std::shared_ptr<const Buffer>& constant_data() const { return constant_; }

    // Control-flow nodes (If): the bodies they run, in order (then, else). A body's Parameters
    // take the node's inputs after the first (the condition), in order; its Results give the
    // node's outputs. A null body could not be built when the model was read (a branch valid only
    // for the other condition value); the attribute "invalid_body_<i>" says why.
    const std::vector<std::shared_ptr<Model>>& bodies() const { return bodies_; }

    bool is_parameter() const { return type_ == "Parameter"; }
    bool is_constant() const { return type_ == "Constant"; }
    bool is_result() const { return type_ == "Result"; }

private:
    friend class Model;
    friend class ModelBuilder;
    friend class ShapeInference;
    struct Port {
        ElementType type = ElementType::undefined;
        Shape shape;
        std::vector<std::string> names;
    };

    std::string type_, version_, name_;
    uint64_t id_ = 0;
    Attributes attrs_;
    RTMap rt_info_;
    std::vector<Output> inputs_;
    std::vector<Port> outputs_;
    std::shared_ptr<const Buffer> constant_;
    std::vector<std::shared_ptr<Model>> bodies_;
};

class MOSAIC_API Model {
public:
    explicit Model(std::string name = "model") : name_(std::move(name)) {}
    Model(const Model&) = delete;
    Model& operator=(const Model&) = delete;

    const std::string& get_friendly_name() const { return name_; }
    void set_friendly_name(std::string name) { name_ = std::move(name); }

    // Adding nodes. An empty name becomes "<type>_<id>". `id` 0 picks the next free id; the IR
    // reader passes layer ids. Nodes are not validated until validate().
    Node* add_node(std::string type, std::string version, std::vector<Output> inputs, Attributes attrs = {},
                   std::string name = "", uint64_t id = 0);
    Node* add_parameter(std::string name, ElementType type, const Shape& shape);
    Node* add_constant(ElementType type, const Shape& shape, std::shared_ptr<const Buffer> data,
                       std::string name = "", uint64_t id = 0);
    Node* add_result(Output source, std::string name = "");
    // A control-flow node (If) holding `bodies` (see Node::bodies).
    Node* add_control_flow(std::string type, std::string version, std::vector<Output> inputs,
                           std::vector<std::shared_ptr<Model>> bodies, Attributes attrs = {}, std::string name = "",
                           uint64_t id = 0);

    // Removes a node that nothing consumes.
    void remove_node(Node* node);

    // All nodes, in insertion order.
    std::vector<Node*> get_ops() const;
    size_t get_ops_count() const { return nodes_.size(); }
    // Nodes in a topological order (stable: ties keep insertion order). Throws ModelError on a cycle.
    std::vector<Node*> get_ordered_ops() const;
    // Parameters and results in insertion order: the model's input and output order.
    std::vector<Node*> get_parameters() const;
    std::vector<Node*> get_results() const;

    // The model's inputs (the Parameters' ports) and outputs (the Results' ports), in order.
    std::vector<Output> inputs() const;
    std::vector<Output> outputs() const;
    // By position, or by any tensor name or friendly name; throws std::out_of_range listing the
    // model's inputs/outputs when there is no such one. input() / output() need exactly one.
    Output input() const;
    Output input(size_t index) const;
    Output input(const std::string& name) const;
    Output output() const;
    Output output(size_t index) const;
    Output output(const std::string& name) const;

    // By friendly name: get_op throws ModelError naming the model and the closest names when there
    // is no such op; find_node returns nullptr.
    Node* get_op(std::string_view name) const;
    Node* find_node(std::string_view name) const;
    Node* find_node_by_id(uint64_t id) const;

    // Graph checks and type/shape inference for every node. Throws ModelError naming the node.
    void validate();

    // Sets the shapes of Parameters (by friendly name or tensor name) and re-runs inference. A shape
    // may keep dimensions dynamic (-1, Dimension()) or bounded (Dimension(1, 8)): the model then
    // compiles once and each inference runs at the shape of the tensors it is given.
    void reshape(const std::map<std::string, PartialShape>& shapes);

    // OpenVINO's ov::pass::MakeStateful: each (input, output) pair, a recurrent state the model
    // reads and writes, becomes a variable (ReadValue / Assign, named after the input, zeros at
    // first) that each infer request keeps, so the application no longer feeds it back. Throws
    // ModelError naming a pair whose input or output does not exist or whose types or shapes differ.
    void make_stateful(const std::map<std::string, std::string>& input_to_output);

    // The name of a model input/output as applications see it: the first tensor name of the port,
    // else the Parameter's / Result's friendly name.
    static std::string input_name(const Node& parameter);
    // A Parameter's declared shape with its ranges ([1..8,3,?,?]); its port shape has -1 for them.
    static PartialShape input_partial_shape(const Node& parameter);
    static std::string output_name(const Node& result);

    RTMap& get_rt_info() { return rt_info_; }
    const RTMap& get_rt_info() const { return rt_info_; }

    // Deep copy of the graph; constant buffers are shared, not copied.
    std::shared_ptr<Model> clone() const;

private:
    std::string name_;
    RTMap rt_info_;
    std::vector<std::unique_ptr<Node>> nodes_;
    uint64_t next_id_ = 1;
};

// Convenience for building models in code:
//   ModelBuilder b("tiny");
//   auto x = b.parameter("x", ElementType::f32, {1, 3, 8, 8});
//   auto w = b.constant<float>({4, 3, 3, 3}, weights);
//   auto y = b.op("Convolution", {x, w}, {{"strides", "1,1"}, ...});
//   b.result(b.op("Relu", {y}), "out");
//   std::shared_ptr<Model> m = b.build();   // validated
class MOSAIC_API ModelBuilder {
public:
    explicit ModelBuilder(std::string name = "model");
    ~ModelBuilder();

    Output parameter(std::string name, ElementType type, const Shape& shape) {
        return infer(model_->add_parameter(std::move(name), type, shape));
    }
    Output constant(ElementType type, const Shape& shape, std::shared_ptr<const Buffer> data, std::string name = "") {
        return infer(model_->add_constant(type, shape, std::move(data), std::move(name)));
    }
    template <typename T>
    Output constant(const Shape& shape, const std::vector<T>& values, std::string name = "");
    // An op of the latest version this builder knows of `type` unless `version` is given.
    Output op(const std::string& type, std::vector<Output> inputs, Attributes attrs = {}, std::string name = "",
              std::string version = "");
    // The node behind op() when an op has several outputs: node(out)->output(1).
    static Node* node(Output o) { return o.node; }
    Output result(Output source, std::string name = "") {
        return infer(model_->add_result(source, std::move(name)));
    }

    Model& model() { return *model_; }
    std::shared_ptr<Model> build();

private:
    // Infers the new node at once, so a mistake is reported at the op() call that makes it.
    Output infer(Node* node);

    std::shared_ptr<Model> model_;
    std::unique_ptr<ShapeInference> inference_;  // carries known values between op() calls
};

template <typename T> constexpr ElementType element_type_of();
template <> constexpr ElementType element_type_of<float>() { return ElementType::f32; }
template <> constexpr ElementType element_type_of<double>() { return ElementType::f64; }
template <> constexpr ElementType element_type_of<int8_t>() { return ElementType::i8; }
template <> constexpr ElementType element_type_of<uint8_t>() { return ElementType::u8; }
template <> constexpr ElementType element_type_of<int32_t>() { return ElementType::i32; }
template <> constexpr ElementType element_type_of<int64_t>() { return ElementType::i64; }

template <typename T>
Output ModelBuilder::constant(const Shape& shape, const std::vector<T>& values, std::string name) {
    if (static_cast<int64_t>(values.size()) != shape_size(shape))
        throw ModelError("constant '" + name + "': " + std::to_string(values.size()) + " values for shape " +
                         to_string(shape));
    return constant(element_type_of<T>(), shape, Buffer::from_vector(values), std::move(name));
}

}  // namespace mosaic
