// Every numpy-generated op case (tests/ops/cases) as a one-op model on the GPU device: the cases the
// GPU's query takes run there and must give the case's expected values; the others are skipped with
// the GPU's reason. A guard checks that the query takes a good share of the cases.
#include "gpu/gpu_op_cases.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

namespace mosaic::test::gpu {
namespace {

class GpuOp : public ::testing::TestWithParam<OpCaseSpec> {};

TEST_P(GpuOp, MatchesTheExpectedValues) {
    const OpCaseSpec& c = GetParam();
    const std::shared_ptr<Model> model = op_case_model(c);
    std::string why;
    if (!gpu_takes(model, &why)) GTEST_SKIP() << c.op << " (" << c.version << "): " << why;

    CompiledModel compiled = shared_core().compile_model(model, "GPU", {{"PERF_COUNT", true}});
    InferRequest request = compiled.create_infer_request();
    set_op_case_inputs(request, c);
    request.infer();
    const auto profile = request.get_profiling_info();
    const std::string exec = profile.empty() ? "none" : profile[0].exec_type;
    RecordProperty("exec_type", exec);
    const double rtol = std::max(c.rtol, 1e-4), atol = std::max(c.atol, 1e-5);
    for (size_t o = 0; o < c.outputs.size(); ++o) {
        Tensor out = request.get_tensor("out" + std::to_string(o));
        ASSERT_EQ(to_string(out.get_shape()), to_string(c.outputs[o].shape)) << "output " << o;
        ASSERT_EQ(out.get_element_type(), c.outputs[o].type) << "output " << o;
        expect_close(c.outputs[o], out.data(), rtol, atol,
                     c.op + " output " + std::to_string(o) + " (ran as " + exec + ")" + contents(profile));
    }
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuOp);
INSTANTIATE_TEST_SUITE_P(Cases, GpuOp, ::testing::ValuesIn(runnable_cases()),
                         [](const ::testing::TestParamInfo<OpCaseSpec>& info) { return info.param.id; });

// A query that refuses everything would turn the suite above into skips: at least 40 cases must
// run on the GPU.
TEST(GpuOpCoverage, TheQueryTakesAtLeastFortyCases) {
    int taken = 0, total = 0;
    std::string refused;
    for (const OpCaseSpec& c : runnable_cases()) {
        ++total;
        if (gpu_takes(op_case_model(c))) ++taken;
        else refused += " " + c.id;
    }
    RecordProperty("cases_on_gpu", taken);
    EXPECT_GE(taken, 40) << taken << " of " << total << " op cases are taken by the GPU; refused:" << refused;
}

}  // namespace
}  // namespace mosaic::test::gpu
