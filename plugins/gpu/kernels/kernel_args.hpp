// The host's side of the kernels' arguments: kernel_interface.h's constants and structs (their
// layout checked against OpenCL C's in kernel_args.cpp), and what executors compute to fill them
// (strides, walks, broadcast indexing) and to launch kernels (work-item counts).
#pragma once

#include "kernels/kernel_interface.h"
#include "opencl/cl.hpp"

#include <mosaic/element_type.hpp>

#include <string>
#include <vector>

namespace mosaic::gpu_plugin {

constexpr int kMaxRank = MOSAIC_MAX_RANK;
constexpr int64_t kWindowMax = WINDOW_MAX, kRingMax = RING_MAX;

// Row-major strides in elements.
std::vector<int64_t> strides_of(const Shape& shape);
// The strides with which `shape` is read when broadcast (numpy rules) to `out`: 0 on broadcast dims.
std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out);
// How an operand broadcast to `out` is indexed from the flat output index i: the cases a kernel can
// compute with at most one division (kernel_interface.h's OperandMode), else a full walk.
struct OperandIndex {
    cl_int mode = OPERAND_WALK;
    cl_int inner = 1;
};
OperandIndex operand_index(const std::vector<int64_t>& strides, const Shape& out);
// A walk over `dims` with the given strides (missing ones 0); throws past kMaxRank.
Walk make_walk(const Shape& dims, const std::vector<int64_t>& in, const std::vector<int64_t>& other = {},
               const std::vector<int64_t>& out = {});

// The work items of a 1-D launch over `n` elements.
inline cl::NDRange items(int64_t n) { return cl::NDRange(static_cast<size_t>(n)); }
// The work items of a window op's sixteen-wide kernel (depthwise_conv16_f32, max/avg_pool16_f32)
// over `count` outputs in rows of `row`: one per block of 16 along each row, the last one partial.
inline cl::NDRange sixteen_wide_items(int64_t count, int64_t row) { return items(count / row * ((row + 15) / 16)); }

}  // namespace mosaic::gpu_plugin
