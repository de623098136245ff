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

// Values computed when the model runs. A schema whose output shape depends on an input's values
// (Reshape's target shape, Pad's pads, Interpolate's sizes...) still answers when those values are
// not known yet: with the rank it can tell and dynamic dimensions. Once the model's input shapes
// are set (Model::reshape, a dynamic model's specialization) the values fold and the shape is
// exact; where they depend on data, the framework runs the model in stages around the op
// (cut_model.hpp). So reading never fails because a dimension is dynamic.

// The most dimensions a shape given by a computed list may have: far above any model's, far below
// an allocation that fails (a declared length of 2^31 would be allocated as that many dimensions).
inline constexpr int64_t kMaxComputedRank = 64;

// Whether input i's values are unknown now (computed when the model runs).
inline bool computed(const InferContext& ctx, size_t i) { return !ctx.input_value(i); }

// The length of input i, an integer 1-D list whose values are computed when the model runs: the
// rank of the shape it gives. Fails unless that length is static and at most kMaxComputedRank.
size_t computed_list_length(const InferContext& ctx, size_t i, std::string_view what);

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
