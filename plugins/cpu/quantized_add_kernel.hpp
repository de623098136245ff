// The element loop of QuantizedAddExecutor (quantize_executor.hpp): two quantized tensors stored
// alike, added in reals, optionally through a Relu, quantized again.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mosaic::cpu_plugin {

struct QuantizedOperand {
    const void* data = nullptr;
    float scale = 1;  // reals = scale * (q - zero_point)
    int32_t zero_point = 0;
    bool is_signed = false;  // i8, else u8
};

struct QuantizedAddArgs {
    QuantizedOperand a, b;
    void* y = nullptr;
    float inverse_scale = 1;  // of y
    int32_t zero_point = 0;
    bool y_signed = false, relu = false;
    size_t count = 0;
};

// y = saturate(round_half_to_even(max?(s_a (a - z_a) + s_b (b - z_b), 0) / s_y) + z_y), on the
// threads of the current OpenMP team.
void quantized_add(const QuantizedAddArgs& args);

}  // namespace mosaic::cpu_plugin
