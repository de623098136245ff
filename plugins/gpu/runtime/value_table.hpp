// The tensors of a graph compiled for the GPU ("values"): the SDK's value table (sdk/value_table.hpp).
// A constant is uploaded to device memory once, at compile time; a graph input or output is the
// caller's tensor, bound per inference; an intermediate is a buffer of the request's memory plan.
// A Reshape, Squeeze or Unsqueeze reads its input's buffer under another shape (`alias_of`), so it
// never runs and never copies.
//
// Constant folding: the table computes what is known at compile time with the reference kernels
// (reference::compile_time_nodes), so the shape computations of exported encoders and the
// decompression Converts of FP16 weights need no GPU kernel and never split a HETERO graph; the
// device's query answers them as supported, so a fold that fails is an error naming the node.
//
// Compressed weights (sdk/compressed_weights.hpp: an LLM's int8/int4 codes decompressed in the
// graph) are the exception: their decompression is left unfolded, the codes go to the device as
// they are (a byte each), and the MatMul reading them dequantizes in its kernel.
//
// Under INFERENCE_PRECISION_HINT f16 the device stores f32 values as f16 (`stored`): kernels load
// and store halves and compute in float (kernels/common/storage.cl's `real`). The graph keeps its
// f32 types, and so do the caller's tensors and the host's constants: uploads narrow, the requests
// convert.
#pragma once

#include <mosaic/sdk/value_table.hpp>

#include <cstddef>
#include <vector>

namespace mosaic::gpu_plugin {

using sdk::is_view_op;
using sdk::kNoValue;
using sdk::ResultCopy;
using sdk::ValueId;
using Use = sdk::ValueUse;

struct Value : sdk::Value {
    ElementType stored = ElementType::undefined;  // in device memory: f16 for f32 under the f16 hint

    // Bytes of the device's copy (byte_size() is the host's: the caller's tensor, a constant's).
    size_t device_bytes() const { return static_cast<size_t>(shape_size(shape)) * element_size(stored); }
    // Whether the device stores it in another type than the host's (f32 as f16): uploads narrow it,
    // requests convert it.
    bool narrowed() const { return stored != type; }
};

class ValueTable : public sdk::BasicValueTable<Value> {
public:
    // `half_floats`: f32 values stored as f16 on the device.
    explicit ValueTable(const sdk::GraphView& graph, bool half_floats = false);

    // How the device stores a tensor of type `t`, and whether it stores f32 as f16.
    ElementType device_type(ElementType t) const { return half_floats_ && t == ElementType::f32 ? ElementType::f16 : t; }
    bool half_floats() const { return half_floats_; }
    // Whether node `n` decompresses weights a compressed MatMul reads as codes: left unfolded, and
    // never run (ops/compressed_matmul_ops.cpp).
    bool decompressed_in_kernel(size_t n) const { return n < decompressed_in_kernels_.size() && decompressed_in_kernels_[n]; }

private:
    ValueTable(const sdk::GraphView& graph, bool half_floats, sdk::ValueTableOptions options);

    bool half_floats_ = false;
    std::vector<bool> decompressed_in_kernels_;
};

}  // namespace mosaic::gpu_plugin
