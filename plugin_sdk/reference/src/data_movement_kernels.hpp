// Registration of the data_movement kernel files (reference/src/data_movement_*.cpp).
#pragma once

#include <mosaic/reference/kernels.hpp>

namespace mosaic::reference {

void register_concat_split_kernels(KernelRegistry&);  // Concat, Split, VariadicSplit
void register_reshape_kernels(KernelRegistry&);       // Reshape, Squeeze, Unsqueeze
void register_permute_kernels(KernelRegistry&);       // Transpose, DepthToSpace, SpaceToDepth
void register_gather_kernels(KernelRegistry&);        // Gather
void register_slice_kernels(KernelRegistry&);         // StridedSlice, Slice
void register_pad_kernels(KernelRegistry&);           // Pad
void register_broadcast_kernels(KernelRegistry&);     // Broadcast, Tile
void register_shape_kernels(KernelRegistry&);         // ShapeOf, Range
void register_scatter_kernels(KernelRegistry&);       // ScatterNDUpdate, ScatterElementsUpdate, ScatterUpdate
// GatherND, GatherElements, OneHot, ReverseSequence, Eye, Roll, NonZero, CumSum
void register_index_kernels(KernelRegistry&);
void register_einsum_kernels(KernelRegistry&);        // Einsum (nn_einsum.cpp), registered with this group
void register_unique_kernels(KernelRegistry&);        // Unique (data_movement_unique.cpp)

}  // namespace mosaic::reference
