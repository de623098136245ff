// Every numpy-generated op case (tests/ops/cases) as a one-op model built with ModelBuilder,
// compiled on the REFERENCE device through Core and the plugin ABI, and run. Error cases must be
// rejected when the op is added, with a message naming the node.
#include "ops/op_case.hpp"

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
    ModelBuilder b(c.id);
    std::vector<Output> inputs;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        const auto& in = c.inputs[i];
        inputs.push_back(in.is_const ? b.constant(in.type, in.shape, Buffer::copy_of(in.bytes.data(), in.bytes.size()))
                                     : b.parameter("in" + std::to_string(i), in.type, in.shape));
    }
    if (!c.error.empty()) {
        try {
            b.op(c.op, inputs, c.attrs, "op_under_test", c.version);
            FAIL() << "expected the op to be rejected with '" << c.error << "'";
        } catch (const ModelError& e) {
            EXPECT_NE(std::string(e.what()).find("'op_under_test'"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(c.error), std::string::npos) << e.what();
        }
        return;
    }
    Output op = b.op(c.op, inputs, c.attrs, "op_under_test", c.version);
    for (size_t o = 0; o < c.outputs.size(); ++o) b.result(ModelBuilder::node(op)->output(o), "out" + std::to_string(o));
    CompiledModel compiled = shared_core().compile_model(b.build(), "REFERENCE");
    InferRequest request = compiled.create_infer_request();
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        if (c.inputs[i].is_const) continue;
        Tensor t(c.inputs[i].type, c.inputs[i].shape);
        if (!c.inputs[i].bytes.empty()) std::memcpy(t.data(), c.inputs[i].bytes.data(), c.inputs[i].bytes.size());
        request.set_tensor("in" + std::to_string(i), t);
    }
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
