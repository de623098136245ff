// Small real models on the GPU against REFERENCE: a residual CNN with a classifier head and a
// transformer encoder block (attention, LayerNorm by MVN and by ReduceMean, Gelu), on GPU alone
// where its query takes every op and on HETERO:GPU,CPU always; and a model with an op the GPU lacks,
// split by HETERO between GPU and CPU, with its transfers in the profiling records.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <set>

namespace mosaic::test::gpu {
namespace {

using nlohmann::json;

constexpr const char* kHetero = "HETERO:GPU,CPU";

json split_of(const CompiledModel& compiled) {
    json split = compiled.get_property("HETERO_SPLIT");
    if (split.is_string()) split = json::parse(split.get<std::string>());
    return split;
}

Output matmul(ModelBuilder& b, Output a, Output w, const std::string& name) {
    return b.op("MatMul", {a, w}, {{"transpose_a", "false"}, {"transpose_b", "false"}}, name);
}

// x @ W + b, W of [in, out] and b of [out].
Output dense(ModelBuilder& b, Output x, int64_t in, int64_t out, uint32_t seed, const std::string& name) {
    Output y = matmul(b, x, random_constant(b, {in, out}, seed, name + "/w", 0.3f), name);
    return b.op("Add", {y, random_constant(b, {out}, seed + 1, name + "/b", 0.1f)}, {}, name + "/bias");
}

Output shape_of(ModelBuilder& b, const std::vector<int64_t>& dims, const std::string& name) {
    return b.constant<int64_t>({static_cast<int64_t>(dims.size())}, dims, name);
}

Output reshape(ModelBuilder& b, Output x, const std::vector<int64_t>& dims, const std::string& name) {
    return b.op("Reshape", {x, shape_of(b, dims, name + "/shape")}, {{"special_zero", "false"}}, name);
}

Output transpose(ModelBuilder& b, Output x, const std::vector<int64_t>& perm, const std::string& name) {
    return b.op("Transpose", {x, shape_of(b, perm, name + "/perm")}, {}, name);
}

// A transformer encoder block on [1, 8, 16]: two-head self-attention with a residual and an MVN
// LayerNorm, then a Gelu feed-forward with a residual and a LayerNorm spelled with ReduceMean.
constexpr int64_t kSeq = 8, kHidden = 16, kHeads = 2, kHeadDim = kHidden / kHeads, kFfn = 32;

std::shared_ptr<Model> encoder_block() {
    ModelBuilder b("gpu_encoder_block");
    Output x = b.parameter("x", ElementType::f32, {1, kSeq, kHidden});
    auto heads = [&](Output t, const std::vector<int64_t>& perm, const std::string& name) {
        return transpose(b, reshape(b, t, {1, kSeq, kHeads, kHeadDim}, name + "/split"), perm, name + "/heads");
    };
    Output q = heads(dense(b, x, kHidden, kHidden, 10, "q"), {0, 2, 1, 3}, "q");  // [1, H, S, D]
    Output k = heads(dense(b, x, kHidden, kHidden, 20, "k"), {0, 2, 3, 1}, "k");  // [1, H, D, S]
    Output v = heads(dense(b, x, kHidden, kHidden, 30, "v"), {0, 2, 1, 3}, "v");  // [1, H, S, D]
    Output scores = matmul(b, q, k, "scores");
    Output scaled = b.op("Multiply", {scores, b.constant<float>({}, {1.0f / std::sqrt(float(kHeadDim))}, "scale")}, {},
                         "scores/scaled");
    Output attn = b.op("Softmax", {scaled}, {{"axis", "-1"}}, "attn", "opset8");
    Output ctx = matmul(b, attn, v, "context");
    Output merged = reshape(b, transpose(b, ctx, {0, 2, 1, 3}, "context/merge"), {1, kSeq, kHidden}, "context/flat");
    Output attn_out = dense(b, merged, kHidden, kHidden, 40, "attn_out");
    Output res1 = b.op("Add", {attn_out, x}, {}, "residual1");
    Output norm1 = b.op("MVN", {res1, b.constant<int64_t>({1}, {-1}, "ln1/axes")},
                        {{"normalize_variance", "true"}, {"eps", "1e-5"}, {"eps_mode", "inside_sqrt"}}, "ln1", "opset6");
    norm1 = b.op("Multiply", {norm1, random_constant(b, {kHidden}, 50, "ln1/gamma")}, {}, "ln1/scale");
    norm1 = b.op("Add", {norm1, random_constant(b, {kHidden}, 51, "ln1/beta", 0.1f)}, {}, "ln1/shift");
    Output ffn = b.op("Gelu", {dense(b, norm1, kHidden, kFfn, 60, "ffn1")}, {{"approximation_mode", "erf"}}, "ffn/gelu",
                      "opset7");
    Output res2 = b.op("Add", {dense(b, ffn, kFfn, kHidden, 70, "ffn2"), norm1}, {}, "residual2");
    Output axes = b.constant<int64_t>({1}, {-1}, "ln2/axes");
    Output mean = b.op("ReduceMean", {res2, axes}, {{"keep_dims", "true"}}, "ln2/mean");
    Output centred = b.op("Subtract", {res2, mean}, {}, "ln2/centred");
    Output var = b.op("ReduceMean", {b.op("Multiply", {centred, centred}, {}, "ln2/square"), axes}, {{"keep_dims", "true"}},
                      "ln2/var");
    Output denom = b.op("Sqrt", {b.op("Add", {var, b.constant<float>({}, {1e-5f}, "ln2/eps")}, {}, "ln2/var_eps")}, {},
                        "ln2/std");
    b.result(b.op("Divide", {centred, denom}, {}, "ln2/normalized"), "y");
    return b.build();
}

// On HETERO:GPU,CPU (and GPU alone when its query takes every op), against REFERENCE.
void check_model(const std::shared_ptr<Model>& model, const Inputs& inputs) {
    const std::string lacking = unsupported_on_gpu(model);
    ::testing::Test::RecordProperty("unsupported_on_gpu", lacking.empty() ? "none" : lacking);
    if (lacking.empty()) {
        SCOPED_TRACE("GPU");
        const RunResult r = expect_device_matches_reference(model, "GPU", inputs);
        EXPECT_FALSE(r.profile.empty());
    }
    SCOPED_TRACE(kHetero);
    expect_device_matches_reference(model, kHetero, inputs);
    CompiledModel compiled = shared_core().compile_model(model, kHetero);
    const json split = split_of(compiled);
    if (lacking.empty()) {
        for (const std::string& op : compute_ops(*model))
            EXPECT_EQ(split["affinity"].value(op, std::string()), "GPU") << op << "\n" << split.dump(1);
    } else {
        std::cout << "[ info ] ops the GPU does not take:" << lacking << "\n";
    }
}

TEST(GpuModel, ResidualCnnMatchesReference) {
    const auto model = small_cnn();
    EXPECT_TRUE(gpu_supports_all(model)) << "the GPU's query leaves out:" << unsupported_on_gpu(model);
    check_model(model, {{"x", random_tensor(kCnnInput, 11)}});
}

TEST(GpuModel, TransformerEncoderBlockMatchesReference) {
    check_model(encoder_block(), {{"x", random_tensor({1, kSeq, kHidden}, 12)}});
}

// Under the f16 hint (gpu_half_test.cpp) the models stay within f16's rounding of REFERENCE's f32
// results, layer after layer: each stored activation keeps 11 significant bits, and the errors of
// a few layers add. The model tolerance for f16, documented in plugins/gpu/README.md.
constexpr double kHalfModelAtol = 5e-3, kHalfModelRtol = 1e-2;

void check_half_model(const std::shared_ptr<Model>& model, const Inputs& inputs) {
    const AnyMap half = {properties::hint::inference_precision("f16")};
    {
        SCOPED_TRACE("GPU under f16");
        expect_device_matches_reference(model, "GPU", inputs, kHalfModelAtol, kHalfModelRtol, half);
    }
    SCOPED_TRACE("HETERO:GPU,CPU with the GPU under f16");
    const AnyMap hetero = {properties::device::properties("GPU", properties::hint::inference_precision("f16"))};
    expect_device_matches_reference(model, kHetero, inputs, kHalfModelAtol, kHalfModelRtol, hetero);
}

TEST(GpuHalfModel, ResidualCnnStaysWithinF16OfReference) {
    check_half_model(small_cnn(), {{"x", random_tensor(kCnnInput, 11)}});
}

TEST(GpuHalfModel, TransformerEncoderBlockStaysWithinF16OfReference) {
    check_half_model(encoder_block(), {{"x", random_tensor({1, kSeq, kHidden}, 12)}});
}

// The CNN with an op the GPU lacks between the stem and the residual block.
std::shared_ptr<Model> cnn_with(const std::string& type) {
    ModelBuilder b("gpu_cnn_with_" + type);
    Output x = b.parameter("x", ElementType::f32, kCnnInput);
    Output stem = b.op("Relu", {conv_bias(b, x, 3, 8, 1, "stem")}, {}, "stem/relu");
    Output odd = b.op(type, {stem}, {}, "odd");
    Output block = conv_bias(b, odd, 8, 8, 3, "block");
    Output res = b.op("Relu", {b.op("Add", {block, odd}, {}, "block/residual")}, {}, "block/relu");
    Output gap = b.op("AvgPool", {res},
                      {{"strides", "1,1"}, {"pads_begin", "0,0"}, {"pads_end", "0,0"}, {"kernel", "16,16"},
                       {"exclude-pad", "true"}, {"rounding_type", "floor"}, {"auto_pad", "explicit"}},
                      "gap", "opset1");
    Output flat = reshape(b, gap, {1, -1}, "flat");
    Output fc = matmul(b, flat, random_constant(b, {8, kCnnClasses}, 5, "fc/w"), "fc");
    Output logits = b.op("Add", {fc, random_constant(b, {1, kCnnClasses}, 6, "fc/b")}, {}, "fc/bias");
    b.result(b.op("Softmax", {logits}, {{"axis", "1"}}, "softmax", "opset8"), "prob");
    return b.build();
}

TEST(GpuHetero, AnOpTheGpuLacksRunsOnCpuWithTransfers) {
    const auto lacking = op_the_gpu_lacks();
    if (!lacking) GTEST_SKIP() << "the GPU takes every candidate op";
    const auto model = cnn_with(lacking->type);
    const QueryResult q = shared_core().query_model_details(model, kHetero);
    EXPECT_TRUE(q.unsupported.empty());
    ASSERT_TRUE(q.affinity.count("odd"));
    EXPECT_EQ(q.affinity.at("odd"), "CPU") << lacking->type;
    EXPECT_EQ(q.affinity.count("stem") ? q.affinity.at("stem") : "", "GPU");

    const Inputs inputs{{"x", random_tensor(kCnnInput, 13)}};
    const RunResult ref = run_on(model, "REFERENCE", inputs);
    CompiledModel compiled = shared_core().compile_model(model, kHetero, {{"PERF_COUNT", true}});
    InferRequest r = compiled.create_infer_request();
    for (const auto& [name, t] : inputs) r.set_tensor(name, t);
    r.infer();
    expect_near(ref.outputs[0], r.get_tensor("prob").to_vector<float>(), kModelAtol, kModelRtol, kHetero, "prob");

    // The split: ops on both devices, the lacking op on CPU, transfers between them.
    const json split = split_of(compiled);
    std::set<std::string> devices;
    for (const auto& [op, device] : split.at("affinity").items()) devices.insert(device.get<std::string>());
    EXPECT_TRUE(devices.count("GPU") && devices.count("CPU")) << split.dump(1);
    EXPECT_EQ(split["affinity"].value("odd", std::string()), "CPU") << split.dump(1);
    EXPECT_EQ(split["affinity"].value("stem", std::string()), "GPU") << split.dump(1);
    EXPECT_GE(split.at("subgraphs").size(), 2u) << split.dump(1);
    ASSERT_FALSE(split.at("transfers").empty()) << split.dump(1);

    const PropertyValue exec = compiled.get_property("EXECUTION_DEVICES");
    const std::string exec_text = exec.dump();
    EXPECT_TRUE(contains(exec_text, "GPU") && contains(exec_text, "CPU")) << exec_text;

    // Profiling: per-subgraph records and one Transfer record per transfer of the split. A
    // discrete GPU adds its own Transfer records of the model's input and output ("subgraph0: x:0"),
    // which are not crossings between devices (gpu_transfer_test.cpp).
    const auto profile = r.get_profiling_info();
    size_t transfers = 0;
    bool gpu_record = false, cpu_record = false;
    for (const auto& p : profile) {
        if (p.node_type == "Transfer" && p.node_name.rfind("transfer: ", 0) == 0) {
            ++transfers;
            EXPECT_EQ(p.status, ProfilingInfo::Status::executed) << p.node_name;
        }
        gpu_record = gpu_record || contains(p.node_name, ": stem");
        cpu_record = cpu_record || contains(p.node_name, ": odd");
    }
    EXPECT_EQ(transfers, split.at("transfers").size()) << contents(profile);
    EXPECT_TRUE(gpu_record) << contents(profile);
    EXPECT_TRUE(cpu_record) << contents(profile);
}

// The split CNN with the GPU under f16: the crossings stay f32 tensors (each GPU subgraph converts
// its inputs and results on the device), the CPU computes in f32, and the output stays within f16
// of REFERENCE.
TEST(GpuHalfModel, ASplitCnnCrossesBetweenTheF16GpuAndTheCpu) {
    const auto lacking = op_the_gpu_lacks();
    if (!lacking) GTEST_SKIP() << "the GPU takes every candidate op";
    const auto model = cnn_with(lacking->type);
    const AnyMap hetero = {properties::device::properties("GPU", properties::hint::inference_precision("f16"))};
    const RunResult r = expect_device_matches_reference(model, kHetero, {{"x", random_tensor(kCnnInput, 14)}},
                                                        kHalfModelAtol, kHalfModelRtol, hetero);
    EXPECT_GE(split_of(shared_core().compile_model(model, kHetero, hetero)).at("subgraphs").size(), 2u);
    EXPECT_EQ(missing_kernel(r, "float_to_real"), "");
}

}  // namespace
}  // namespace mosaic::test::gpu
