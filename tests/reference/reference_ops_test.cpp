// Every numpy-generated op case (tests/ops/cases) as a one-op model built with ModelBuilder,
// compiled on the REFERENCE device through Core and the plugin ABI, and run. Error cases must be
// rejected when the op is added, with a message naming the node.
#include "ops/op_case.hpp"
#include "tools/mosaic/op_case_model.hpp"

#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>

namespace mosaic::test {
namespace {

Core& shared_core() {
    static Core core;
    return core;
}

class ReferenceOp : public ::testing::TestWithParam<OpCaseSpec> {};

TEST_P(ReferenceOp, RunsAsAModelOnReference) {
    const OpCaseSpec& c = GetParam();
    if (!c.error.empty()) {
        try {
            op_case_model(c);
            FAIL() << "expected the op to be rejected with '" << c.error << "'";
        } catch (const ModelError& e) {
            EXPECT_NE(std::string(e.what()).find("'op_under_test'"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(c.error), std::string::npos) << e.what();
        }
        return;
    }
    CompiledModel compiled = shared_core().compile_model(op_case_model(c), "REFERENCE");
    InferRequest request = compiled.create_infer_request();
    set_op_case_inputs(request, c);
    request.infer();
    for (size_t o = 0; o < c.outputs.size(); ++o) {
        Tensor out = request.get_tensor("out" + std::to_string(o));
        ASSERT_EQ(to_string(out.get_shape()), to_string(c.outputs[o].shape));
        ASSERT_EQ(out.get_element_type(), c.outputs[o].type);
        expect_close(c.outputs[o], out.data(), c.rtol, c.atol, "output " + std::to_string(o));
    }
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ReferenceOp);
INSTANTIATE_TEST_SUITE_P(Cases, ReferenceOp, ::testing::ValuesIn(load_op_cases(MOSAIC_OP_CASES_DIR)),
                         [](const ::testing::TestParamInfo<OpCaseSpec>& info) { return info.param.id; });

}  // namespace
}  // namespace mosaic::test
