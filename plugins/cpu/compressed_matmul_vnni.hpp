// The compressed MatMul's integer path (DYNAMIC_QUANTIZATION_GROUP_SIZE, as OpenVINO's CPU plugin
// names it): each row of x is quantized to int8 in groups of 32 or more values (one scale each, the
// largest magnitude over 127), and the codes are multiplied by it with AVX512-VNNI's integer dot
// products, 64 products per instruction, where the exact path converts every code to a float first.
// What ONNX Runtime does at accuracy_level 4 and llama.cpp with its Q8 activations: x is rounded to
// 8 bits per group, about 0.4% of its group's largest value.
//
//   y[n] = sum_c s_w(g(c)) * s_x(c) * (sum_{k in c} code[k] q[k]) - sum_g s_w(g) z(g) sum_{c in g} s_x(c) sum_{k in c} q[k]
//
// over the chunks c of 32 codes. The integer sums are exact; each chunk's is scaled once.
#pragma once

#include "compressed_matmul_kernel.hpp"

#include <cstddef>
#include <cstdint>

namespace mosaic::cpu_plugin {

// Whether this CPU has AVX512-VNNI and `w`'s groups line up with the kernel's blocks (32 or 64
// codes, or a multiple of 128 with 4-bit codes, of 64 with 8-bit codes).
bool vnni_applies(const CompressedMatrix& w);

size_t vnni_scratch(const CompressedMatrix& w, int64_t m);

// y[m, N] (+)= x[m, K] . W^T with x quantized in groups of `activation_group` values (a multiple of 32).
void vnni_matmul(const CompressedMatrix& w, const float* x, int64_t m, float* y, bool accumulate, int threads,
                 int64_t activation_group, uint8_t* scratch);

}  // namespace mosaic::cpu_plugin
