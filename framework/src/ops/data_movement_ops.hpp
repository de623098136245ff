// Schemas of the data_movement group, split by concept into ops/data_movement_*.cpp, and the small
// helpers they share for reading value-dependent inputs (axes, shapes, pads...).
#pragma once

#include <cstdint>

#include "ops/op_schema.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace mosaic::ops {

void register_concat_split_ops(OpRegistry&);  // Concat, Split, VariadicSplit
void register_reshape_ops(OpRegistry&);       // Reshape, Squeeze, Unsqueeze
void register_permute_ops(OpRegistry&);       // Transpose, DepthToSpace, SpaceToDepth
void register_gather_ops(OpRegistry&);        // Gather
void register_slice_ops(OpRegistry&);         // StridedSlice, Slice
void register_pad_ops(OpRegistry&);           // Pad
void register_broadcast_ops(OpRegistry&);     // Broadcast, Tile
void register_shape_ops(OpRegistry&);         // ShapeOf, Range
void register_scatter_ops(OpRegistry&);       // ScatterNDUpdate, ScatterElementsUpdate, ScatterUpdate
// GatherND, GatherElements, OneHot, ReverseSequence, Eye, Roll, NonZero, CumSum
void register_index_ops(OpRegistry&);
void register_einsum_ops(OpRegistry&);        // Einsum (ops/nn_einsum.cpp), registered with this group

namespace dm {

// "[1,2,3]" for a list of values (not dims: -1 prints as -1).
std::string list_text(const std::vector<int64_t>& values);

// Fails unless input i has an integer element type.
void require_integer(const InferContext& ctx, size_t i, std::string_view what);

// The value of input i, which must be an integer scalar or a one-element 1D tensor known at build time.
int64_t const_scalar(const InferContext& ctx, size_t i, std::string_view what);

// The values of input i, which must be an integer 1D tensor (or a scalar when allow_scalar) known at
// build time.
std::vector<int64_t> const_list(const InferContext& ctx, size_t i, std::string_view what, bool allow_scalar);

// Dimension arithmetic that keeps a dynamic dim (-1) dynamic.
inline int64_t dim_add(int64_t a, int64_t b) { return a < 0 || b < 0 ? kDynamicDim : a + b; }
// Saturates instead of overflowing; the shape-inference driver rejects the oversized result.
inline int64_t dim_mul(int64_t a, int64_t b) {
    if (a < 0 || b < 0) return kDynamicDim;
    int64_t out = 0;
    return __builtin_mul_overflow(a, b, &out) ? INT64_MAX : out;
}

}  // namespace dm

}  // namespace mosaic::ops
