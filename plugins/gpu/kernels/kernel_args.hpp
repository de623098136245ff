// C++ mirrors of the structs kernels take by value (kernels/00_common.cl, conv.cl, pooling.cl):
// 4-byte members only, so both sides lay them out alike.
#pragma once

#include "opencl/cl.hpp"

#include <mosaic/element_type.hpp>

#include <string>
#include <vector>

namespace mosaic::gpu_plugin {

constexpr int kMaxRank = 8;

struct Walk {
    cl_int rank = 0;
    cl_int dims[kMaxRank] = {};
    cl_int in_strides[kMaxRank] = {};
    cl_int other_strides[kMaxRank] = {};
    cl_int out_strides[kMaxRank] = {};
};

struct Activation {
    cl_int kind = 0;  // ACT_* of 00_common.cl; 0: none
    cl_float a = 0, b = 0;
};

// conv.cl's ConvShape: one group's input channels, the image and output sizes, the window.
struct ConvShape {
    cl_int channels, in_h, in_w, out_h, out_w, kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w, pad_top,
        pad_left;
};

struct EpilogueArgs {
    cl_int has_bias = 0, channels = 1, inner = 1;
    cl_int act1 = 0;
    cl_float act1_a = 0, act1_b = 0;
    cl_int has_residual = 0;
    cl_int act2 = 0;
    cl_float act2_a = 0, act2_b = 0;
    // Which way a GEMM's C holds the channels (gemm.cl's gemm_store_tile): one a column (a MatMul's
    // last axis), else one a row (a convolution's). Told, not guessed from `inner`: a convolution
    // over a 1x1 map has inner 1 too, and took one channel's bias for every row (paddle2onnx's
    // squeeze-and-excitation blocks, wrong on the GPU).
    cl_int bias_per_column = 0;
};

// Row-major strides in elements.
std::vector<int64_t> strides_of(const Shape& shape);
// The strides with which `shape` is read when broadcast (numpy rules) to `out`: 0 on broadcast dims.
std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out);
// How an operand broadcast to `out` is indexed from the flat output index i: the cases a kernel can
// compute with at most one division (a bias vector over the trailing dims, a per-row statistic over
// the leading ones, a scalar), else a full walk. Mirrors 00_common.cl's operand_offset().
enum OperandMode : cl_int { OPERAND_WALK = 0, OPERAND_SAME, OPERAND_TRAILING, OPERAND_LEADING, OPERAND_SCALAR };
struct OperandIndex {
    cl_int mode = OPERAND_WALK;  // OPERAND_SAME: i, TRAILING: i % inner, LEADING: i / inner, SCALAR: 0
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

// What a sixteen-wide window kernel keeps of the input in private memory: row windows of at most
// kWindowMax values (00_common.cl's load_window), at most kRingMax rows of them at once
// (conv.cl's depthwise_column16_f32). The program gets them as WINDOW_MAX and RING_MAX.
constexpr int64_t kWindowMax = 48, kRingMax = 8;
std::string window_options();

}  // namespace mosaic::gpu_plugin
