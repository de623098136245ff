// The tensors of a graph compiled for the GPU ("values"): one per node output. Each is a constant
// (uploaded to device memory once, at compile time), a graph input or output (the caller's tensor,
// bound per inference), an intermediate (a buffer of the request's memory plan), or a view: a
// Reshape, Squeeze or Unsqueeze reads its input's buffer under another shape, so it never runs
// and never copies (`alias_of` names the value whose buffer it shares).
//
// Constant folding: a node whose outputs are known at compile time (reference::compile_time_nodes:
// ops over constants, ShapeOf of a static shape and what is computed from them) is computed once
// here with its reference kernel; its outputs become constants the table owns. The shape
// computations of exported encoders and the decompression Converts of FP16 weights need no GPU
// kernel and never split a HETERO graph.
//
// Under INFERENCE_PRECISION_HINT f16 the device stores f32 values as f16 (`stored`): kernels load
// and store halves and compute in float (kernels/common/storage.cl's `real`). The graph keeps its
// f32 types, and so do the caller's tensors and the host's constants: uploads narrow, the requests
// convert.
#pragma once

#include <mosaic/sdk/graph.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace mosaic::gpu_plugin {

using ValueId = size_t;
constexpr ValueId kNoValue = SIZE_MAX;

struct Use {
    size_t node = 0;  // the consuming node (a Result counts)
    size_t port = 0;
};

struct Value {
    enum class Kind { constant, input, output, intermediate };
    Kind kind = Kind::intermediate;
    ElementType type = ElementType::undefined;
    ElementType stored = ElementType::undefined;  // in device memory: f16 for f32 under the f16 hint
    Shape shape;
    const void* constant = nullptr;  // Kind::constant: the host's bytes
    size_t io_index = 0;             // Kind::input: Parameter index; Kind::output: Result index
    size_t producer = SIZE_MAX;      // the node that computes it
    ValueId alias_of = kNoValue;     // a view: the value whose buffer holds its bytes
    std::vector<Use> uses;

    // Bytes of the host's tensor (the caller's, a constant's) and of the device's copy.
    size_t byte_size() const { return static_cast<size_t>(shape_size(shape)) * element_size(type); }
    size_t device_bytes() const { return static_cast<size_t>(shape_size(shape)) * element_size(stored); }
    bool is_constant() const { return kind == Kind::constant; }
    // Whether the device stores it in another type than the host's (f32 as f16): uploads narrow it,
    // requests convert it.
    bool narrowed() const { return stored != type; }
};

// A Result whose tensor is not written in place by the executor producing it (its value is a
// constant, a graph input, a view, or already written into another output): copied last.
struct ResultCopy {
    ValueId from = kNoValue;
    size_t output = 0;
};

class ValueTable {
public:
    // `half_floats`: f32 values stored as f16 on the device.
    explicit ValueTable(const sdk::GraphView& graph, bool half_floats = false);

    size_t size() const { return values_.size(); }
    const Value& operator[](ValueId id) const { return values_.at(id); }
    ValueId output(size_t node, size_t port) const { return outputs_.at(node).at(port); }
    ValueId input(size_t node, size_t i) const { return inputs_.at(node).at(i); }
    // The value whose storage holds `v` (itself unless it is a view).
    ValueId storage_of(ValueId v) const { return values_.at(v).alias_of == kNoValue ? v : values_.at(v).alias_of; }
    // False for Parameter, Constant, Result, views and folded nodes: nothing runs for them.
    bool runs(size_t node) const { return runs_.at(node); }
    size_t folded_nodes() const { return folded_nodes_; }
    // How the device stores a tensor of type `t`, and whether it stores f32 as f16.
    ElementType device_type(ElementType t) const { return half_floats_ && t == ElementType::f32 ? ElementType::f16 : t; }
    bool half_floats() const { return half_floats_; }

    size_t graph_input_count() const { return graph_inputs_; }
    size_t graph_output_count() const { return graph_outputs_; }
    // The Parameter's and the Result's node names, by index: what profiling records of their
    // copies between host and device are named.
    const std::string& input_name(size_t index) const { return input_names_.at(index); }
    const std::string& output_name(size_t index) const { return output_names_.at(index); }
    const std::vector<ResultCopy>& result_copies() const { return result_copies_; }

private:
    void add_node(const sdk::GraphView& g, size_t n, bool compile_time);
    void fold(const sdk::GraphView& g, size_t n);
    void bind_result(size_t result_node, ValueId source);

    bool half_floats_ = false;
    std::vector<Value> values_;
    std::vector<std::vector<ValueId>> outputs_, inputs_;
    std::vector<bool> runs_;
    std::vector<ResultCopy> result_copies_;
    size_t graph_inputs_ = 0, graph_outputs_ = 0;
    std::vector<std::string> input_names_, output_names_;
    std::vector<std::unique_ptr<uint8_t[]>> folded_;  // outputs of folded nodes
    size_t folded_nodes_ = 0;
};

// Reshape, Squeeze and Unsqueeze: the bytes stay as they are.
bool is_view_op(const std::string& type);

}  // namespace mosaic::gpu_plugin
