// Glue between Mosaic's tensors and oneDNN: descriptors of plain row-major tensors, the scratch
// layout an executor carves out of its request's scratch area, reorders built at compile time
// (packed_weights.hpp reorders constant weights once).
#pragma once

#include <mosaic/element_type.hpp>

#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>
#include <string>

namespace mosaic::cpu_plugin {

// Whether oneDNN can describe a tensor of `shape`: 1 to DNNL_MAX_NDIMS dims (oneDNN has no
// scalars), all positive (an empty tensor has nothing to compute). The reference kernels take the rest.
bool describable(const Shape& shape);

// The strides of a row-major tensor of `dims`, as Mosaic stores every tensor.
dnnl::memory::dims row_major_strides(const dnnl::memory::dims& dims);

dnnl::memory::dims dims_of(const Shape& shape);

// Row-major, as Mosaic stores every tensor; f32 unless told.
dnnl::memory::desc plain_desc(const Shape& shape, dnnl::memory::data_type type = dnnl::memory::data_type::f32);

// oneDNN's name for `type`; undef for the types oneDNN has no tensors of (f64, i64, ...).
dnnl::memory::data_type data_type_of(ElementType type);

// `desc` with its elements of `type` instead, laid out alike (a quantized copy of a blocked tensor).
dnnl::memory::desc with_type(const dnnl::memory::desc& desc, dnnl::memory::data_type type);

// The layout value `v` is stored in: its blocked layout, or plain_desc of its shape and type.
struct Value;
dnnl::memory::desc layout_of(const Value& v);

// For an executor that keeps its source's layout (pooling, binary, reduction, concat): the
// destination of `dims` and `type` to ask oneDNN for. `any` when the source is blocked and the
// result an intermediate of those dims (oneDNN then picks the source's blocking), else plain.
dnnl::memory::desc result_request(const Value& src, const Value& result, const dnnl::memory::dims& dims,
                                  dnnl::memory::data_type type = dnnl::memory::data_type::f32);

// Whether a primitive built on blocked inputs is worth keeping: oneDNN falls back to its
// reference implementations for layouts its fast kernels do not take, slower than a reorder to
// plain and a fast kernel.
bool fast_implementation(const char* impl_info);

struct BuildContext;
// After the primitive is made: an intermediate result keeps the layout oneDNN chose for it.
void keep_layout(const BuildContext& ctx, size_t value, const dnnl::memory::desc& chosen);

// Every primitive is created with this: oneDNN's own scratchpad is shared between primitives and
// tied to the thread that created them, which concurrent requests would break; with user
// scratchpads each request hands over its own area.
dnnl::primitive_attr user_scratchpad_attr();

// "oneDNN 2.6.3, avx512_core_bf16": for FULL_DEVICE_NAME.
std::string onednn_description();

// Whether this CPU computes in bf16 natively (AVX512-BF16 or AMX): INFERENCE_PRECISION_HINT bf16
// is offered only then, since oneDNN would otherwise emulate it slower than f32.
bool cpu_has_bf16();

// Offsets into an executor's scratch area, each 64-byte aligned.
class ScratchLayout {
public:
    size_t reserve(size_t bytes);
    size_t total() const { return total_; }

private:
    size_t total_ = 0;
};

// A layout change of an activation, created at compile time and run per inference.
class Reorder {
public:
    Reorder() = default;
    Reorder(const dnnl::engine& engine, const dnnl::memory::desc& from, const dnnl::memory::desc& to);

    explicit operator bool() const { return bool(primitive_); }
    size_t scratchpad_bytes() const { return scratchpad_.get_size(); }
    const std::string& impl() const { return impl_; }  // oneDNN's implementation, e.g. "jit:uni"
    void run(dnnl::stream& stream, const dnnl::memory& from, const dnnl::memory& to, void* scratchpad) const;

private:
    dnnl::reorder primitive_;
    dnnl::memory::desc scratchpad_;
    std::string impl_;
};

}  // namespace mosaic::cpu_plugin
