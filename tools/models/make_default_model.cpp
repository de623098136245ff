// Builds Mosaic's bundled default model, a small CNN classifier, and writes it as IR v11:
//   make_default_model OUT.xml            (the weights go to OUT.bin)
//
//   data f32 [1,3,32,32]
//   conv1: Convolution 16x3x3x3 pad 1 + bias Add + Relu       -> [1,16,32,32]
//   pool1: MaxPool 2x2 stride 2                                -> [1,16,16,16]
//   conv2: Convolution 32x16x3x3 pad 1 + bias Add + Relu      -> [1,32,16,16]
//   dw3:   GroupConvolution 32x1x1x3x3 (depthwise) pad 1 + Relu
//   gap:   AvgPool 16x16 (global average)                      -> [1,32,1,1]
//   flatten: Reshape [0,-1]                                    -> [1,32]
//   fc:    MatMul (transpose_b) 10x32 + bias Add               -> [1,10]
//   prob:  Softmax axis 1                                      -> [1,10]
//   top5:  TopK k=5 (max, sorted by value) of prob             -> values [1,5], indices i32 [1,5]
//
// Everything up to the global pool is Convolution / GroupConvolution / MaxPool / AvgPool / Relu /
// Add, the ops ACCEL runs, so HETERO:ACCEL,REFERENCE splits the model into an ACCEL feature
// extractor and a REFERENCE classifier head; with GREEDY placement the head's bias Add (an op ACCEL
// runs) goes back to ACCEL between the MatMul and the Softmax (4 subgraphs), MIN_TRANSFER keeps it
// on REFERENCE (2).
//
// The GPU device has no TopK, so HETERO:GPU,CPU (the main job) runs everything up to the Softmax on
// the GPU and the top-5 on the CPU: the split, its transfer and both devices' counters are visible.
//
// The weights come from a fixed-seed generator (the model is the same on every build) with
// He-uniform scaling, so activations keep a sane range through the ReLUs and the softmax is not
// saturated.
#include "model_weights.hpp"

#include <mosaic/model.hpp>
#include <mosaic/serialize.hpp>

#include <cmath>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace {

using mosaic::Attributes;
using mosaic::ElementType;
using mosaic::ModelBuilder;
using mosaic::Output;
using mosaic::Shape;
using mosaic::models::Generator;
using mosaic::models::he_limit;
using mosaic::models::pool_attrs;
using mosaic::models::random_values;

// Convolution + per-channel bias Add + Relu.
Output conv_block(ModelBuilder& b, Generator& gen, Output x, const std::string& name, int64_t in_c, int64_t out_c) {
    const Shape w_shape{out_c, in_c, 3, 3};
    auto w = b.constant<float>(w_shape, random_values(gen, mosaic::shape_size(w_shape), he_limit(in_c * 9)),
                               name + "/weights");
    auto bias = b.constant<float>({1, out_c, 1, 1}, random_values(gen, out_c, 0.05f), name + "/bias");
    auto y = b.op("Convolution", {x, w}, mosaic::models::conv3x3_attrs(), name, "opset1");
    y = b.op("Add", {y, bias}, {{"auto_broadcast", "numpy"}}, name + "/add_bias", "opset1");
    return b.op("Relu", {y}, {}, name + "/relu", "opset1");
}

std::shared_ptr<mosaic::Model> build() {
    ModelBuilder b("mosaic_cnn");
    Generator gen(20240601);

    auto data = b.parameter("data", ElementType::f32, {1, 3, 32, 32});
    ModelBuilder::node(data)->set_output_names(0, {"data"});

    auto x = conv_block(b, gen, data, "conv1", 3, 16);
    x = b.op("MaxPool", {x}, pool_attrs(2), "pool1", "opset1");
    x = conv_block(b, gen, x, "conv2", 16, 32);

    const Shape dw_shape{32, 1, 1, 3, 3};
    auto dw = b.constant<float>(dw_shape, random_values(gen, mosaic::shape_size(dw_shape), he_limit(9)), "dw3/weights");
    x = b.op("GroupConvolution", {x, dw}, mosaic::models::conv3x3_attrs(), "dw3", "opset1");
    x = b.op("Relu", {x}, {}, "dw3/relu", "opset1");

    Attributes gap = pool_attrs(16);
    gap.set("exclude-pad", true);
    x = b.op("AvgPool", {x}, gap, "gap", "opset1");

    auto flat_shape = b.constant<int64_t>({2}, {0, -1}, "flatten/shape");
    x = b.op("Reshape", {x, flat_shape}, {{"special_zero", "true"}}, "flatten", "opset1");

    auto fc_w = b.constant<float>({10, 32}, random_values(gen, 320, he_limit(32)), "fc/weights");
    auto fc_b = b.constant<float>({1, 10}, random_values(gen, 10, 0.05f), "fc/bias");
    x = b.op("MatMul", {x, fc_w}, {{"transpose_a", "false"}, {"transpose_b", "true"}}, "fc", "opset1");
    x = b.op("Add", {x, fc_b}, {{"auto_broadcast", "numpy"}}, "fc/add_bias", "opset1");

    auto prob = b.op("Softmax", {x}, {{"axis", "1"}}, "prob", "opset8");
    ModelBuilder::node(prob)->set_output_names(0, {"prob"});
    b.result(prob, "prob/result");

    auto k = b.constant<int64_t>({}, {5}, "top5/k");
    auto top5 = b.op("TopK", {prob, k},
                     {{"axis", "1"}, {"mode", "max"}, {"sort", "value"}, {"index_element_type", "i32"}}, "top5",
                     "opset11");
    ModelBuilder::node(top5)->set_output_names(0, {"top5_probabilities"});
    ModelBuilder::node(top5)->set_output_names(1, {"top5_classes"});
    b.result(ModelBuilder::node(top5)->output(0), "top5_probabilities/result");
    b.result(ModelBuilder::node(top5)->output(1), "top5_classes/result");
    return b.build();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " OUT.xml\n";
        return 2;
    }
    try {
        const std::filesystem::path out(argv[1]);
        if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
        mosaic::serialize(*build(), out.string());
    } catch (const std::exception& e) {
        std::cerr << "make_default_model: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
