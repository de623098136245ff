// Runs every op case in tests/ops/cases/*.json twice: through the op's shape inference (types and
// shapes must equal the expected outputs') and through its reference kernel (values must match the
// numpy-computed expectations). A case with "error" instead expects shape inference to fail with a
// message containing that text. The case format is documented in tests/ops/README.md.
#include "op_case.hpp"

#include "ops/op_schema.hpp"

#include <mosaic/reference/kernels.hpp>

#include <gtest/gtest.h>

namespace mosaic::test {
namespace {

class OpCase : public ::testing::TestWithParam<OpCaseSpec> {};

TEST_P(OpCase, ShapeInferenceAndReferenceKernel) {
    const OpCaseSpec& c = GetParam();
    const ops::OpSchema* schema = ops::OpRegistry::instance().find(c.op, c.version);
    ASSERT_NE(schema, nullptr) << "no op schema for " << c.op << "-" << c.version;

    std::vector<ops::PortInfo> ports;
    std::vector<ops::KnownValue> values(c.inputs.size());
    std::vector<const ops::KnownValue*> value_ptrs;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        const auto& in = c.inputs[i];
        ports.push_back({in.type, in.shape});
        values[i] = {in.type, in.shape, in.bytes.data(), nullptr};
        value_ptrs.push_back(in.is_const ? &values[i] : nullptr);
    }
    ops::InferContext ctx(c.attrs, ports, value_ptrs);

    if (!c.error.empty()) {
        try {
            schema->infer(ctx);
            FAIL() << "expected shape inference to fail with '" << c.error << "'";
        } catch (const std::exception& e) {
            EXPECT_NE(std::string(e.what()).find(c.error), std::string::npos)
                << "message was: " << e.what();
        }
        return;
    }

    std::vector<ops::PortInfo> inferred = schema->infer(ctx);
    ASSERT_EQ(inferred.size(), c.outputs.size());
    for (size_t i = 0; i < inferred.size(); ++i) {
        EXPECT_EQ(to_string(inferred[i].type), to_string(c.outputs[i].type)) << "output " << i;
        EXPECT_EQ(to_string(inferred[i].shape), to_string(c.outputs[i].shape)) << "output " << i;
    }

    reference::KernelArgs args{c.op, c.version, c.attrs, {}, {}};
    for (const auto& in : c.inputs) args.inputs.push_back({in.type, in.shape, in.bytes.data()});
    std::vector<std::vector<uint8_t>> out_buffers;
    for (const auto& out : c.outputs) {
        out_buffers.emplace_back(out.bytes.size(), uint8_t{0xCD});
        args.outputs.push_back({out.type, out.shape, out_buffers.back().data()});
    }
    ASSERT_NE(reference::find_kernel(c.op, c.version), nullptr) << "no kernel for " << c.op << "-" << c.version;
    reference::run_reference_kernel(args);
    for (size_t i = 0; i < c.outputs.size(); ++i)
        expect_close(c.outputs[i], out_buffers[i].data(), c.rtol, c.atol, "output " + std::to_string(i));
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpCase);
INSTANTIATE_TEST_SUITE_P(Cases, OpCase, ::testing::ValuesIn(load_op_cases(MOSAIC_OP_CASES_DIR)),
                         [](const ::testing::TestParamInfo<OpCaseSpec>& info) { return info.param.id; });

}  // namespace
}  // namespace mosaic::test
