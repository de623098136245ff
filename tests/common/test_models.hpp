// Small models shared by the runtime tests, with values small enough to check by hand.
#pragma once

#include <mosaic/mosaic.hpp>

#include <vector>

namespace mosaic::test {

// x[1,1,4,4] -> Convolution(w 2x1x3x3 constant, pads 1) -> Add(b[1,2,1,1]) -> Relu -> "y" [1,2,4,4]
inline std::shared_ptr<Model> conv_relu_model() {
    ModelBuilder b("conv_relu");
    Output x = b.parameter("x", ElementType::f32, {1, 1, 4, 4});
    std::vector<float> w(18);
    for (int i = 0; i < 9; ++i) w[i] = 1.0f;    // channel 0: box sum
    for (int i = 0; i < 9; ++i) w[9 + i] = 0.0f;
    w[9 + 4] = -1.0f;                           // channel 1: negated centre tap
    Output wc = b.constant<float>({2, 1, 3, 3}, w, "w");
    Output conv = b.op("Convolution", {x, wc},
                       {{"strides", "1,1"}, {"dilations", "1,1"}, {"pads_begin", "1,1"}, {"pads_end", "1,1"},
                        {"auto_pad", "explicit"}},
                       "conv");
    Output bias = b.constant<float>({1, 2, 1, 1}, {0.5f, 1.0f}, "bias");
    Output add = b.op("Add", {conv, bias}, {}, "add");
    Output relu = b.op("Relu", {add}, {}, "relu");
    b.result(relu, "y");
    return b.build();
}

// The expected output of conv_relu_model for input x[i] = i (0..15), computed by hand:
// channel 0 = relu(3x3 box sum with zero padding + 0.5), channel 1 = relu(1 - x).
inline std::vector<float> conv_relu_expected() {
    std::vector<float> out(32);
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
            float sum = 0;
            for (int dr = -1; dr <= 1; ++dr)
                for (int dc = -1; dc <= 1; ++dc) {
                    int rr = r + dr, cc = c + dc;
                    if (rr >= 0 && rr < 4 && cc >= 0 && cc < 4) sum += static_cast<float>(rr * 4 + cc);
                }
            out[r * 4 + c] = std::max(0.0f, sum + 0.5f);
            out[16 + r * 4 + c] = std::max(0.0f, 1.0f - static_cast<float>(r * 4 + c));
        }
    return out;
}

inline Tensor iota_tensor(const Shape& shape) {
    Tensor t(ElementType::f32, shape);
    for (size_t i = 0; i < t.get_size(); ++i) t.data<float>()[i] = static_cast<float>(i);
    return t;
}

}  // namespace mosaic::test
