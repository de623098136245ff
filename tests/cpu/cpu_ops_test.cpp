// Every numpy-generated op case (tests/ops/cases) as a one-op model compiled on the CPU device,
// which runs each op on oneDNN or on the reference kernels, against the case's expected values.
#include "cpu/cpu_test_util.hpp"
#include "ops/op_case.hpp"
#include "tools/mosaic/op_case_model.hpp"

#include <gtest/gtest.h>

namespace mosaic::test {
namespace {

class CpuOp : public ::testing::TestWithParam<OpCaseSpec> {};

TEST_P(CpuOp, MatchesTheExpectedValues) {
    const OpCaseSpec& c = GetParam();
    CompiledModel compiled = shared_core().compile_model(op_case_model(c), "CPU", {{"PERF_COUNT", true}});
    InferRequest request = compiled.create_infer_request();
    set_op_case_inputs(request, c);
    request.infer();
    const std::string exec = request.get_profiling_info().empty() ? "none" : request.get_profiling_info()[0].exec_type;
    RecordProperty("exec_type", exec);  // --gtest_output=xml lists which cases ran on oneDNN
    for (size_t o = 0; o < c.outputs.size(); ++o) {
        Tensor out = request.get_tensor("out" + std::to_string(o));
        ASSERT_EQ(to_string(out.get_shape()), to_string(c.outputs[o].shape));
        ASSERT_EQ(out.get_element_type(), c.outputs[o].type);
        expect_close(c.outputs[o], out.data(), c.rtol, c.atol, "output " + std::to_string(o) + " (ran on " + exec + ")");
    }
}

// The cases a model can be built from: error cases fail in shape inference, before any device.
std::vector<OpCaseSpec> runnable_cases() {
    std::vector<OpCaseSpec> cases;
    for (OpCaseSpec& c : load_op_cases(MOSAIC_OP_CASES_DIR))
        if (c.error.empty()) cases.push_back(std::move(c));
    return cases;
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CpuOp);
INSTANTIATE_TEST_SUITE_P(Cases, CpuOp, ::testing::ValuesIn(runnable_cases()),
                         [](const ::testing::TestParamInfo<OpCaseSpec>& info) { return info.param.id; });

// The ops this step runs on oneDNN say so in their profiling records; the others say "ref".
TEST(CpuOpPlacement, ExecTypeNamesTheImplementation) {
    ModelBuilder b("placement");
    Output x = b.parameter("x", ElementType::f32, {1, 4, 8, 8});
    Output conv = b.op("Convolution", {x, random_constant(b, {4, 4, 3, 3}, 1)}, conv_attrs(), "conv");
    Output sine = b.op("Sin", {conv}, {}, "sine");
    Output pool = b.op("MaxPool", {sine},
                       {{"strides", "2,2"}, {"pads_begin", "0,0"}, {"pads_end", "0,0"}, {"kernel", "2,2"},
                        {"rounding_type", "floor"}, {"auto_pad", "explicit"}},
                       "pool", "opset1");
    Output soft = b.op("Softmax", {pool}, {{"axis", "1"}}, "soft", "opset1");
    b.result(soft, "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 4, 8, 8}, 2)}});
    ASSERT_EQ(op_records(r.profile).size(), 4u) << contents(r.profile);
    for (const char* name : {"conv", "pool", "soft"}) {
        const ProfilingInfo* p = record_named(r.profile, name);
        ASSERT_NE(p, nullptr) << name << contents(r.profile);
        EXPECT_NE(p->exec_type, "ref") << name;
        EXPECT_FALSE(p->exec_type.empty()) << name;
    }
    EXPECT_EQ(record_named(r.profile, "sine")->exec_type, "ref");
}

}  // namespace
}  // namespace mosaic::test
