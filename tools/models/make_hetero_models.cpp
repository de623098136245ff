// Builds the HETERO benchmark models and writes them as IR v11 into one folder:
//   make_hetero_models OUT_DIR     (OUT_DIR/<name>.xml and .bin for mosaic_scattered, mosaic_two_branch
//                                   and mosaic_pipeline)
//
// Both are meant for HETERO:ACCEL,REFERENCE, where ACCEL is REFERENCE restricted to Convolution,
// GroupConvolution, MaxPool, AvgPool, Relu and Add (config/plugins.json).
//
// mosaic_scattered: a CNN whose ACCEL-only stretches are cut by ops ACCEL cannot run, so the split
// has many subgraphs and many device crossings. It also has one cheap ACCEL-capable op (pool3)
// caught between two REFERENCE-only ops, and so is the classifier's bias Add (fc/add_bias, between
// MatMul and Softmax): GREEDY places both on ACCEL, two more crossings and two more subgraphs each.
// Split with GREEDY, 14 subgraphs:
//   A[b1] R[sig1] A[b2 b3] R[tanh3] A[pool3] R[scale3] A[b4 b5] R[clamp5] A[b6 b7] R[gate7]
//   A[b8 residual gap] R[flatten fc] A[fc/add_bias] R[prob]
// MIN_TRANSFER moves pool3 and fc/add_bias to REFERENCE (10 subgraphs) when ACCEL's COST_FACTOR
// makes ACCEL cheaper than REFERENCE but by less than the transfers saved (0.5, the registry's).
//
//   data f32 [1,16,56,56]
//   b1..b3: Convolution 16->16 3x3 pad 1 + bias Add + Relu          [1,16,56,56]
//     sig1 (Sigmoid) after b1, tanh3 (Tanh) after b3
//   pool3: MaxPool 2x2 stride 2                                      [1,16,28,28]
//   scale3: Multiply by a per-channel constant
//   b4: 16->32, b5..b8: 32->32, each + bias Add + Relu              [1,32,28,28]
//     clamp5 (Clamp 0..6) after b5; gate7 (x * Sigmoid(x)) after b7
//   residual: Add(b8, gate7)
//   gap: AvgPool 28x28 -> flatten: Reshape [0,-1] -> fc: MatMul 10x32 + bias -> prob: Softmax
//
// mosaic_two_branch: two independent branches of comparable work from one input, joined at the
// end, so that one inference keeps two devices busy at once. On HETERO:ACCEL,REFERENCE the conv
// branch runs on ACCEL and the MatMul branch (ACCEL has no MatMul) on REFERENCE, by plain GREEDY
// placement, no manual affinity needed:
//   data f32 [1,16,56,56]
//   conv branch: c1..c4 Convolution 16->16 3x3 + bias Add + Relu, AvgPool 56x56, Reshape -> [1,16]
//   mlp branch:  Reshape [896,56], MatMul 56->128, Tanh, MatMul 128->128, Tanh, MatMul 128->128,
//                Sigmoid, ReduceMean axis 0 (keep dims)                                     -> [1,128]
//   join: Concat axis 1 -> [1,144], MatMul 10x144 + bias, Softmax -> prob [1,10]
//
// mosaic_pipeline: the same two halves in series, convolutions (ACCEL) then the MatMul layers
// (REFERENCE), so one request keeps only one device busy at a time and the second device only
// helps when several requests are in flight (pipelining):
//   data f32 [1,16,56,56] -> c1..c4 (as above) -> mlp (as above) -> Reshape [0,-1] -> [1,128]
//   -> MatMul 10x128 + bias, Softmax -> prob [1,10]
//
// Weights come from a fixed seed (the models are the same on every build) with He-uniform scaling.
#include "model_weights.hpp"

#include <mosaic/model.hpp>
#include <mosaic/serialize.hpp>

#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

namespace {

using mosaic::Attributes;
using mosaic::ElementType;
using mosaic::ModelBuilder;
using mosaic::Output;
using mosaic::Shape;
using namespace mosaic::models;

// Convolution 3x3 + per-channel bias Add + Relu: three ops ACCEL runs.
Output conv_block(ModelBuilder& b, Generator& gen, Output x, const std::string& name, int64_t in_c, int64_t out_c) {
    const Shape w_shape{out_c, in_c, 3, 3};
    auto w = b.constant<float>(w_shape, random_values(gen, mosaic::shape_size(w_shape), he_limit(in_c * 9)),
                               name + "/weights");
    auto bias = b.constant<float>({1, out_c, 1, 1}, random_values(gen, out_c, 0.05f), name + "/bias");
    auto y = b.op("Convolution", {x, w}, conv3x3_attrs(), name, "opset1");
    y = b.op("Add", {y, bias}, numpy_broadcast(), name + "/add_bias", "opset1");
    return b.op("Relu", {y}, {}, name + "/relu", "opset1");
}

// Global average pool over an HxW map, then [1,C,1,1] -> [1,C].
Output pool_and_flatten(ModelBuilder& b, Output x, int64_t size, const std::string& pool_name,
                        const std::string& flat_name) {
    Attributes gap = pool_attrs(size);
    gap.set("exclude-pad", true);
    x = b.op("AvgPool", {x}, gap, pool_name, "opset1");
    auto flat_shape = b.constant<int64_t>({2}, {0, -1}, flat_name + "/shape");
    return b.op("Reshape", {x, flat_shape}, {{"special_zero", "true"}}, flat_name, "opset1");
}

// MatMul against a [out, in] weight (transpose_b) + bias, then Softmax: the classifier head.
Output classifier(ModelBuilder& b, Generator& gen, Output x, int64_t in, int64_t classes) {
    auto fc_w = b.constant<float>({classes, in}, random_values(gen, classes * in, he_limit(in)), "fc/weights");
    auto fc_b = b.constant<float>({1, classes}, random_values(gen, classes, 0.05f), "fc/bias");
    x = b.op("MatMul", {x, fc_w}, {{"transpose_a", "false"}, {"transpose_b", "true"}}, "fc", "opset1");
    x = b.op("Add", {x, fc_b}, numpy_broadcast(), "fc/add_bias", "opset1");
    return b.op("Softmax", {x}, {{"axis", "1"}}, "prob", "opset8");
}

void add_output(ModelBuilder& b, Output prob) {
    ModelBuilder::node(prob)->set_output_names(0, {"prob"});
    b.result(prob, "prob/result");
}

Output add_input(ModelBuilder& b) {
    auto data = b.parameter("data", ElementType::f32, {1, 16, 56, 56});
    ModelBuilder::node(data)->set_output_names(0, {"data"});
    return data;
}

std::shared_ptr<mosaic::Model> build_scattered() {
    ModelBuilder b("mosaic_scattered");
    Generator gen(20240611);
    auto x = add_input(b);

    x = conv_block(b, gen, x, "b1", 16, 16);
    x = b.op("Sigmoid", {x}, {}, "sig1", "opset1");
    x = conv_block(b, gen, x, "b2", 16, 16);
    x = conv_block(b, gen, x, "b3", 16, 16);
    x = b.op("Tanh", {x}, {}, "tanh3", "opset1");
    x = b.op("MaxPool", {x}, pool_attrs(2), "pool3", "opset1");  // ACCEL-capable, between two REFERENCE ops
    auto scale = b.constant<float>({1, 16, 1, 1}, random_values(gen, 16, 1.0f), "scale3/factor");
    x = b.op("Multiply", {x, scale}, numpy_broadcast(), "scale3", "opset1");

    x = conv_block(b, gen, x, "b4", 16, 32);
    x = conv_block(b, gen, x, "b5", 32, 32);
    x = b.op("Clamp", {x}, {{"min", "0"}, {"max", "6"}}, "clamp5", "opset1");
    x = conv_block(b, gen, x, "b6", 32, 32);
    x = conv_block(b, gen, x, "b7", 32, 32);
    auto gate = b.op("Sigmoid", {x}, {}, "gate7/sigmoid", "opset1");
    x = b.op("Multiply", {x, gate}, numpy_broadcast(), "gate7", "opset1");
    auto y = conv_block(b, gen, x, "b8", 32, 32);
    x = b.op("Add", {y, x}, numpy_broadcast(), "residual", "opset1");

    x = pool_and_flatten(b, x, 28, "gap", "flatten");
    add_output(b, classifier(b, gen, x, 32, 10));
    return b.build();
}

// Reshape [1,16,56,56] -> [896,56] and three MatMul layers with activations, then the mean over
// rows: [1,128]. About the multiply-adds of four 16->16 3x3 convolutions at 56x56 (36M against 29M).
Output mlp_branch(ModelBuilder& b, Generator& gen, Output x) {
    auto rows = b.constant<int64_t>({2}, {16 * 56, 56}, "mlp/rows/shape");
    x = b.op("Reshape", {x, rows}, {{"special_zero", "false"}}, "mlp/rows", "opset1");
    const int64_t widths[] = {56, 128, 128, 128};
    const char* activations[] = {"Tanh", "Tanh", "Sigmoid"};
    for (int i = 0; i < 3; ++i) {
        const std::string name = "mlp/fc" + std::to_string(i + 1);
        auto w = b.constant<float>({widths[i], widths[i + 1]},
                                   random_values(gen, widths[i] * widths[i + 1], he_limit(widths[i])), name + "/weights");
        x = b.op("MatMul", {x, w}, {{"transpose_a", "false"}, {"transpose_b", "false"}}, name, "opset1");
        x = b.op(activations[i], {x}, {}, name + "/act", "opset1");
    }
    auto axis = b.constant<int64_t>({1}, {0}, "mlp/mean/axes");
    return b.op("ReduceMean", {x, axis}, {{"keep_dims", "true"}}, "mlp/mean", "opset1");
}

std::shared_ptr<mosaic::Model> build_two_branch() {
    ModelBuilder b("mosaic_two_branch");
    Generator gen(20240612);
    auto data = add_input(b);

    auto c = data;
    for (int i = 1; i <= 4; ++i) c = conv_block(b, gen, c, "conv/c" + std::to_string(i), 16, 16);
    c = pool_and_flatten(b, c, 56, "conv/gap", "conv/flatten");

    auto m = mlp_branch(b, gen, data);

    auto joined = b.op("Concat", {c, m}, {{"axis", "1"}}, "join", "opset1");
    add_output(b, classifier(b, gen, joined, 16 + 128, 10));
    return b.build();
}

std::shared_ptr<mosaic::Model> build_pipeline() {
    ModelBuilder b("mosaic_pipeline");
    Generator gen(20240613);
    auto x = add_input(b);
    for (int i = 1; i <= 4; ++i) x = conv_block(b, gen, x, "conv/c" + std::to_string(i), 16, 16);
    x = mlp_branch(b, gen, x);
    auto flat_shape = b.constant<int64_t>({2}, {0, -1}, "flatten/shape");
    x = b.op("Reshape", {x, flat_shape}, {{"special_zero", "true"}}, "flatten", "opset1");
    add_output(b, classifier(b, gen, x, 128, 10));
    return b.build();
}

void write(const std::shared_ptr<mosaic::Model>& model, const std::filesystem::path& dir) {
    mosaic::serialize(*model, (dir / (model->get_friendly_name() + ".xml")).string());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " OUT_DIR\n";
        return 2;
    }
    try {
        const std::filesystem::path dir(argv[1]);
        std::filesystem::create_directories(dir);
        write(build_scattered(), dir);
        write(build_two_branch(), dir);
        write(build_pipeline(), dir);
    } catch (const std::exception& e) {
        std::cerr << "make_hetero_models: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
