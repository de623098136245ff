// Copies between the caller's memory and the device: on a discrete GPU every input is written and
// every output read back; on a device sharing host memory (PoCL) the tensors are used in place,
// unless GPU_ZERO_COPY is off, which takes the discrete GPU's path. Here that path runs in CI:
// results bit-identical to zero-copy, each copy a Transfer record named for its Parameter or Result,
// and HETERO's crossing records saying "host-staged" (with the copies' time) exactly when the GPU copied.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

#include <map>

namespace mosaic::test::gpu {
namespace {

// Outputs of three kinds: one an executor writes ("act"), one copied from a view of the input
// ("flat", a Result copy), and one of a second executor over the first ("scaled").
std::shared_ptr<Model> io_model() {
    ModelBuilder b("gpu_transfers");
    Output x = b.parameter("x", ElementType::f32, {2, 3, 4});
    Output act = b.op("Relu", {x}, {}, "act");
    b.result(act, "act_out");
    b.result(b.op("Reshape", {x, b.constant<int64_t>({2}, {2, 12}, "flat/shape")}, {{"special_zero", "false"}}, "flat"),
             "flat_out");
    b.result(b.op("Multiply", {act, b.constant<float>({1}, {3.0f}, "three")}, {}, "scaled"), "scaled_out");
    return b.build();
}

bool gpu_is_discrete() { return shared_core().get_property("GPU", "DEVICE_TYPE").get<std::string>() == "discrete"; }

// Transfer records of a run: node name -> exec type.
std::map<std::string, std::string> transfers_of(const RunResult& run) {
    std::map<std::string, std::string> found;
    for (const ProfilingInfo& p : run.profile)
        if (p.node_type == "Transfer") found[p.node_name] = p.exec_type;
    return found;
}

const Inputs& io_inputs() {
    static const Inputs inputs{{"x", random_tensor({2, 3, 4}, 21)}};
    return inputs;
}

TEST(GpuTransfers, CopyingGivesTheBitsOfZeroCopyAndMatchesReference) {
    const RunResult in_place = expect_device_matches_reference(io_model(), "GPU", io_inputs());
    const RunResult copied =
        expect_device_matches_reference(io_model(), "GPU", io_inputs(), kModelAtol, kModelRtol, {{"GPU_ZERO_COPY", false}});
    EXPECT_EQ(copied.outputs, in_place.outputs);
}

TEST(GpuTransfers, EachCopyIsProfiledNamedForItsParameterOrResult) {
    const RunResult copied =
        run_on(io_model(), "GPU", io_inputs(), {{"GPU_ZERO_COPY", false}, {"PERF_COUNT", true}});
    const std::map<std::string, std::string> expected = {
        {"x", "write_buffer"}, {"act_out", "read_buffer"}, {"flat_out", "read_buffer"}, {"scaled_out", "read_buffer"}};
    EXPECT_EQ(transfers_of(copied), expected);
    CompiledModel compiled = shared_core().compile_model(io_model(), "GPU", {{"GPU_ZERO_COPY", false}});
    EXPECT_EQ(compiled.get_property("GPU_ZERO_COPY"), false);
}

TEST(GpuTransfers, TheDefaultCopiesOnlyWhereTheDeviceHasItsOwnMemory) {
    const RunResult run = run_on(io_model(), "GPU", io_inputs(), {{"PERF_COUNT", true}});
    CompiledModel compiled = shared_core().compile_model(io_model(), "GPU");
    EXPECT_EQ(compiled.get_property("GPU_ZERO_COPY"), !gpu_is_discrete());
    EXPECT_EQ(transfers_of(run).empty(), !gpu_is_discrete()) << transfers_of(run).size() << " transfer records";
}

// HETERO:GPU,CPU over x -> Relu (GPU) -> an op the GPU lacks (CPU): one crossing, GPU to CPU.
TEST(GpuTransfers, HeteroCallsACrossingACopyExactlyWhenTheGpuCopiedIt) {
    const std::optional<UnsupportedOp> lacking = op_the_gpu_lacks();
    if (!lacking) GTEST_SKIP() << "the GPU runs every candidate op, so nothing splits";
    ModelBuilder b("gpu_crossing");
    Output x = b.parameter("x", ElementType::f32, {2, 3, 4});
    Output a = b.op("Relu", {x}, {}, "a");
    b.result(b.op(lacking->type, {a}, {}, "b"), "y");
    const auto model = b.build();

    for (const bool zero_copy : {true, false}) {
        SCOPED_TRACE(zero_copy ? "GPU_ZERO_COPY default" : "GPU_ZERO_COPY off");
        AnyMap properties = {{"PERF_COUNT", true}};
        if (!zero_copy) properties["DEVICE_PROPERTIES"] = AnyMap{{"GPU", AnyMap{{"GPU_ZERO_COPY", false}}}};
        const RunResult run = expect_device_matches_reference(model, "HETERO:GPU,CPU", io_inputs(), kModelAtol,
                                                              kModelRtol, properties);
        const bool copies = !zero_copy || gpu_is_discrete();
        const std::map<std::string, std::string> transfers = transfers_of(run);
        const std::string crossing = "transfer: a:0 subgraph0 (GPU) -> subgraph1 (CPU), 96 bytes";
        ASSERT_TRUE(transfers.count(crossing)) << "no record '" << crossing << "' among " << transfers.size();
        EXPECT_EQ(transfers.at(crossing), copies ? "host-staged" : "zero-copy");
        // The GPU's record of reading the crossing back is folded into HETERO's (no time counted
        // twice); its record of writing the model's input stays with its subgraph.
        EXPECT_EQ(transfers.count("subgraph0: a:0/to_host"), 0u);
        EXPECT_EQ(transfers.count("subgraph0: x:0"), copies ? 1u : 0u);  // HETERO names it for its tensor
    }
}

}  // namespace
}  // namespace mosaic::test::gpu
