// Helpers shared by the data_movement kernels. These kernels move whole elements, so they work on
// raw bytes of element_size(type) and serve every element type alike.
#pragma once

#include <mosaic/reference/kernels.hpp>
#include <mosaic/reference/slicing.hpp>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace mosaic::reference::dm {

// Row-major element strides of a shape.
inline std::vector<int64_t> strides_of(const Shape& shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
    return strides;
}

// Calls fn(index) for every multi-index of `shape` in row-major order (once for a scalar).
template <typename Fn>
void for_each_index(const Shape& shape, Fn&& fn) {
    if (shape_size(shape) == 0) return;
    std::vector<int64_t> index(shape.size(), 0);
    while (true) {
        fn(index);
        size_t d = shape.size();
        while (d > 0 && ++index[d - 1] == shape[d - 1]) index[--d] = 0;
        if (d == 0) return;
    }
}

[[noreturn]] inline void fail(const KernelArgs& args, const std::string& message) {
    throw std::runtime_error(std::string(args.op_type) + "-" + std::string(args.version) + ": " + message);
}

inline void check(const KernelArgs& args, bool condition, const std::string& message) {
    if (!condition) fail(args, message);
}

// Checks the argument counts and that output `out` has input 0's element type (the data moved).
inline void check_io(const KernelArgs& args, size_t min_inputs, size_t outputs) {
    check(args, args.inputs.size() >= min_inputs, "expected at least " + std::to_string(min_inputs) + " inputs, got " +
                                                      std::to_string(args.inputs.size()));
    check(args, args.outputs.size() == outputs, "expected " + std::to_string(outputs) + " outputs, got " +
                                                    std::to_string(args.outputs.size()));
    for (const auto& out : args.outputs)
        check(args, out.type == args.inputs[0].type && element_size(out.type) > 0,
              std::string("output element type ") + to_string(out.type) + " differs from the data's " +
                  to_string(args.inputs[0].type));
}

inline void check_shape(const KernelArgs& args, const Shape& actual, const Shape& expected, const char* what) {
    check(args, actual == expected, std::string(what) + " shape " + to_string(actual) + " differs from the expected " +
                                        to_string(expected));
}

// The values of an integer (or boolean) tensor, widened to int64.
inline std::vector<int64_t> read_ints(const KernelArgs& args, const ConstTensorView& t, const char* what) {
    const int64_t n = t.size();
    std::vector<int64_t> out(static_cast<size_t>(n));
    const auto* p = static_cast<const uint8_t*>(t.data);
    for (int64_t i = 0; i < n; ++i, p += element_size(t.type)) {
        switch (t.type) {
            case ElementType::i8: out[i] = static_cast<int8_t>(*p); break;
            case ElementType::u8: case ElementType::boolean: out[i] = *p; break;
            case ElementType::i16: { int16_t v; std::memcpy(&v, p, 2); out[i] = v; break; }
            case ElementType::u16: { uint16_t v; std::memcpy(&v, p, 2); out[i] = v; break; }
            case ElementType::i32: { int32_t v; std::memcpy(&v, p, 4); out[i] = v; break; }
            case ElementType::u32: { uint32_t v; std::memcpy(&v, p, 4); out[i] = v; break; }
            case ElementType::i64: { int64_t v; std::memcpy(&v, p, 8); out[i] = v; break; }
            case ElementType::u64: { uint64_t v; std::memcpy(&v, p, 8); out[i] = static_cast<int64_t>(v); break; }
            default: fail(args, std::string(what) + " must have an integer element type, got " + to_string(t.type));
        }
    }
    return out;
}

// Input i's values, or an empty list when the input is absent.
inline std::vector<int64_t> read_optional_ints(const KernelArgs& args, size_t i, const char* what) {
    return i < args.inputs.size() ? read_ints(args, args.inputs[i], what) : std::vector<int64_t>{};
}

// Copies element `from` of `src` to element `to` of `dst`.
inline void copy_element(void* dst, int64_t to, const void* src, int64_t from, size_t esize) {
    std::memcpy(static_cast<uint8_t*>(dst) + to * esize, static_cast<const uint8_t*>(src) + from * esize, esize);
}

// dst = src transposed by `order` (output axis i is input axis order[i]).
inline void permute(const void* src, const Shape& in_shape, const std::vector<int64_t>& order, void* dst, size_t esize) {
    const std::vector<int64_t> in_strides = strides_of(in_shape);
    Shape out_shape;
    for (int64_t axis : order) out_shape.push_back(in_shape[axis]);
    int64_t to = 0;
    for_each_index(out_shape, [&](const std::vector<int64_t>& index) {
        int64_t from = 0;
        for (size_t d = 0; d < order.size(); ++d) from += index[d] * in_strides[order[d]];
        copy_element(dst, to++, src, from, esize);
    });
}

// Per input axis, the elements a slice takes: start, start + step, ... (count of them).
using AxisSlice = reference::AxisSlice;

// dst = the elements of src picked by one AxisSlice per axis, in row-major order. The trailing
// axes taken whole, and the axis before them where its step is 1, are contiguous in src: each of
// their blocks is one memcpy (a KV cache's positions sliced per head, rows of an image).
inline void gather_slices(const void* src, const Shape& in_shape, const std::vector<AxisSlice>& slices, void* dst,
                          size_t esize) {
    const std::vector<int64_t> in_strides = strides_of(in_shape);
    size_t outer = slices.size();
    int64_t run = 1;
    while (outer > 0 && slices[outer - 1].start == 0 && slices[outer - 1].step == 1 &&
           slices[outer - 1].count == in_shape[outer - 1])
        run *= in_shape[--outer];
    int64_t run_start = 0;  // where a block starts within the merged axes
    if (outer > 0 && slices[outer - 1].step == 1) {
        --outer;
        run *= slices[outer].count;
        run_start = slices[outer].start * in_strides[outer];
    }
    Shape counts;
    for (size_t d = 0; d < outer; ++d) counts.push_back(slices[d].count);
    if (run == 0) return;
    auto* out = static_cast<unsigned char*>(dst);
    const auto* in = static_cast<const unsigned char*>(src);
    const size_t block = static_cast<size_t>(run) * esize;
    for_each_index(counts, [&](const std::vector<int64_t>& index) {
        int64_t from = run_start;
        for (size_t d = 0; d < outer; ++d) from += (slices[d].start + index[d] * slices[d].step) * in_strides[d];
        std::memcpy(out, in + static_cast<size_t>(from) * esize, block);
        out += block;
    });
}

}  // namespace mosaic::reference::dm
