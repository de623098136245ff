// CumSum on the GPU (scan.cl's cumsum_*): x computed at run time, every axis and each
// combination of exclusive and reverse, f32 within the f32 tolerance of REFERENCE and i64
// bit-identical, wrapping past its range as the reference does.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace mosaic::test::gpu {
namespace {

std::shared_ptr<Model> cumsum_model(ElementType type, const Shape& shape) {
    ModelBuilder b("gpu_cumsum");
    Output x = b.parameter("x", type, shape);
    for (int64_t axis = -1; axis < static_cast<int64_t>(shape.size()); ++axis)
        for (const char* exclusive : {"false", "true"})
            for (const char* reverse : {"false", "true"}) {
                const std::string name = "cumsum_axis" + std::to_string(axis) + "_ex" + exclusive + "_rev" + reverse;
                b.result(b.op("CumSum", {x, b.constant<int64_t>({}, {axis}, name + "/axis")},
                              {{"exclusive", exclusive}, {"reverse", reverse}}, name, "opset3"),
                         name + "_out");
            }
    return b.build();
}

TEST(GpuScan, CumSumOfF32MatchesReferenceAlongEveryAxis) {
    const auto model = cumsum_model(ElementType::f32, {2, 5, 19});
    ASSERT_TRUE(gpu_supports_all(model)) << unsupported_on_gpu(model);
    const RunResult r = expect_device_matches_reference(model, "GPU", {{"x", random_tensor({2, 5, 19}, 171)}});
    EXPECT_EQ(missing_kernel(r, "cumsum_f32"), "");
}

TEST(GpuScan, CumSumOfI64IsBitIdenticalToReferenceAndWraps) {
    const auto model = cumsum_model(ElementType::i64, {3, 4});
    ASSERT_TRUE(gpu_supports_all(model)) << unsupported_on_gpu(model);
    constexpr int64_t hi = std::numeric_limits<int64_t>::max();
    const Tensor x = Tensor::from_vector({3, 4}, ElementType::i64, std::vector<int64_t>{hi, 1, -5, 7, 2, hi, 3, -9, 0, 4, -hi, 6});
    auto run = [&](const std::string& device) {
        CompiledModel compiled = shared_core().compile_model(model, device, {{"PERF_COUNT", true}});
        InferRequest r = compiled.create_infer_request();
        r.set_tensor("x", x);
        r.infer();
        std::vector<std::vector<int64_t>> out;
        for (const Node* result : model->get_results()) out.push_back(r.get_tensor(Model::output_name(*result)).to_vector<int64_t>());
        if (device == "GPU")
            for (const ProfilingInfo& p : r.get_profiling_info()) EXPECT_EQ(p.exec_type, "cumsum_i64") << p.node_name;
        return out;
    };
    EXPECT_EQ(run("GPU"), run("REFERENCE"));
}

TEST(GpuScan, AnAxisComputedAtRunTimeStaysOnTheNextDevice) {
    ModelBuilder b("gpu_cumsum_runtime_axis");
    Output x = b.parameter("x", ElementType::f32, {2, 3});
    Output axis = b.parameter("axis", ElementType::i64, {});
    b.result(b.op("CumSum", {x, axis}, {}, "cumsum", "opset3"), "y");
    const std::string why = unsupported_on_gpu(b.build());
    EXPECT_NE(why.find("cumsum (GPU: input 1 is computed at run time"), std::string::npos) << why;
}

}  // namespace
}  // namespace mosaic::test::gpu
