// The tensors of a graph compiled for the CPU ("values"): one per node output, each a constant, a
// graph input or output (the caller's tensor, used in place) or an intermediate (a buffer of the
// memory plan). A node that only reinterprets a constant (Reshape, Squeeze or Unsqueeze of a
// Constant, as the ONNX reader writes for biases and grouped filters) yields a constant value over
// the same bytes: the op never runs and the weights stay where the host keeps them.
//
// Constant folding: any other op whose inputs are all constants, and ShapeOf of a tensor whose
// shape is static, is computed once here with the reference kernel; its outputs become constants
// the table owns (a transposed weight, a shape computation of an exported encoder), so no executor
// runs them per inference.
//
// A value also has a physical layout. Constants, graph inputs and outputs are plain row-major;
// an intermediate f32 tensor between oneDNN executors keeps the blocked layout its producer wrote
// (nChw16c, ...), so a chain of convolutions and poolings never reorders in between. A consumer
// that needs it plain reads a plain copy, made once by a reorder executor (executor_builder.cpp).
#pragma once

#include <mosaic/sdk/graph.hpp>

#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace mosaic::cpu_plugin {

using ValueId = size_t;
constexpr ValueId kNoValue = SIZE_MAX;

struct Use {
    size_t node = 0;  // the consuming node (a Result counts)
    size_t port = 0;  // which of its inputs
};

struct Value {
    enum class Kind { constant, input, output, intermediate };
    Kind kind = Kind::intermediate;
    ElementType type = ElementType::undefined;
    Shape shape;
    const void* constant = nullptr;  // Kind::constant
    size_t io_index = 0;             // Kind::input: Parameter index; Kind::output: Result index
    size_t producer = SIZE_MAX;      // the node that computes it (output and intermediate)
    std::vector<Use> uses;
    dnnl::memory::desc layout;  // empty: plain row-major; else the blocked layout it is stored in

    // The logical size: what a plain tensor of this type and shape takes.
    size_t byte_size() const { return static_cast<size_t>(shape_size(shape)) * element_size(type); }
    // What its storage takes: a blocked layout pads channels up to the block.
    size_t storage_bytes() const { return is_plain() ? byte_size() : layout.get_size(); }
    bool is_plain() const { return layout.is_zero(); }
    bool is_constant() const { return kind == Kind::constant; }
};

// A Result whose tensor is not written in place by the executor producing it: its value is a
// constant, a graph input, or a value already written into an earlier output. Copied last.
struct ResultCopy {
    ValueId from = kNoValue;
    size_t output = 0;
};

class ValueTable {
public:
    explicit ValueTable(const sdk::GraphView& graph);

    size_t size() const { return values_.size(); }
    const Value& operator[](ValueId id) const { return values_.at(id); }

    ValueId output(size_t node, size_t port) const { return outputs_.at(node).at(port); }
    ValueId input(size_t node, size_t i) const { return inputs_.at(node).at(i); }
    // False for Parameter, Constant, Result and the constant views: nothing runs for them.
    bool runs(size_t node) const { return runs_.at(node); }

    // While executors are built: the layout an intermediate's producer writes it in, a new
    // intermediate holding a plain copy of `of`, and a node reading that copy instead.
    void set_layout(ValueId v, const dnnl::memory::desc& layout);
    ValueId add_plain_copy(ValueId of);
    void rebind_input(size_t node, size_t port, ValueId v);

    size_t folded_nodes() const { return folded_nodes_; }
    size_t graph_input_count() const { return graph_inputs_; }
    size_t graph_output_count() const { return graph_outputs_; }
    const std::vector<ResultCopy>& result_copies() const { return result_copies_; }

private:
    void add_node(const sdk::GraphView& g, size_t n);
    // Computes node `n` now when its outputs can only be constants; false when it must run.
    bool fold(const sdk::GraphView& g, size_t n);
    void bind_result(size_t result_node, ValueId source);

    std::vector<Value> values_;
    std::vector<std::vector<ValueId>> outputs_, inputs_;  // per node, per port
    std::vector<bool> runs_;
    std::vector<ResultCopy> result_copies_;
    std::vector<std::unique_ptr<uint8_t[]>> folded_;  // outputs of folded nodes
    size_t folded_nodes_ = 0;
    size_t graph_inputs_ = 0, graph_outputs_ = 0;
};

}  // namespace mosaic::cpu_plugin
