// Random placements: every op (not Parameter / Constant / Result) gets a random device among those
// of HETERO:ACCEL,NPU,REFERENCE that run it. Whatever the placement, the split must be acyclic,
// keep each subgraph on one device, honour every affinity, and compute what REFERENCE computes.
#include "hetero/hetero_test_util.hpp"

#include <random>

namespace mosaic::test::hetero {
namespace {

const std::vector<std::string> kDevices = {"ACCEL", "NPU", "REFERENCE"};
constexpr int kSeeds = 30;

void check_random_placements(Core& core, const std::shared_ptr<Model>& model,
                             const std::vector<std::string>& devices = kDevices, int seeds = kSeeds) {
    std::string hetero = "HETERO:";
    for (size_t i = 0; i < devices.size(); ++i) hetero += (i ? "," : "") + devices[i];
    const auto supported = supported_ops(core, model, devices);
    const auto expected = reference_outputs(core, model);
    const std::vector<std::string> ops = compute_ops(*model);
    for (int seed = 0; seed < seeds; ++seed) {
        std::mt19937 gen(static_cast<uint32_t>(seed) * 7919u + 17u);
        auto placed = model->clone();
        std::map<std::string, std::string> chosen;
        for (const std::string& op : ops) {
            std::vector<std::string> options;
            for (const auto& d : devices)
                if (supported.count(d) && supported.at(d).count(op)) options.push_back(d);
            ASSERT_FALSE(options.empty()) << op << " runs nowhere";
            chosen[op] = options[std::uniform_int_distribution<size_t>(0, options.size() - 1)(gen)];
            placed->find_node(op)->get_rt_info()["affinity"] = chosen[op];
        }
        std::string placement;
        for (const auto& [op, device] : chosen) placement += "\n  " + op + " -> " + device;
        SCOPED_TRACE(model->get_friendly_name() + ", seed " + std::to_string(seed) + ":" + placement);
        CompiledModel compiled;
        try {
            compiled = core.compile_model(placed, hetero);
        } catch (const std::exception& e) {
            ADD_FAILURE() << "compile failed: " << e.what();
            continue;
        }
        EXPECT_TRUE(outputs_near(run(compiled), expected));
        const json split = split_of(compiled);
        EXPECT_TRUE(split_is_consistent(split, *placed));
        EXPECT_TRUE(transfers_are_as_expected(split, *placed));
        for (const auto& [op, device] : chosen) EXPECT_EQ(split["affinity"][op], device) << op;
        EXPECT_EQ(compiled.get_property("HETERO_NUMBER_OF_SUBGRAPHS"), split["subgraphs"].size());
        if (::testing::Test::HasFailure()) return;  // one placement's report is enough to debug
    }
}

TEST(HeteroRandomAffinity, DefaultCnn) {
    Core core;
    auto model = default_cnn(core);
    if (!model) GTEST_SKIP() << "no default model in " << build_dir() << "/models (build target mosaic_default_model)";
    check_random_placements(core, model);
}

TEST(HeteroRandomAffinity, ConvReluModel) {
    Core core;
    check_random_placements(core, conv_relu_model());
}

TEST(HeteroRandomAffinity, BranchesAndConcat) {
    Core core;
    check_random_placements(core, branchy_model());
}

TEST(HeteroRandomAffinity, ResidualBlocks) {
    Core core;
    check_random_placements(core, residual_model());
}

TEST(HeteroRandomAffinity, WideFanOutAndFanIn) {
    // One input feeding six branches of alternating kinds, joined pairwise and then by a Concat:
    // many independent subgraphs whose order the split has to get right.
    ModelBuilder b("fan");
    Output x = b.parameter("x", ElementType::f32, {1, 2, 4, 4});
    std::vector<Output> branches;
    const char* kinds[] = {"Relu", "Sigmoid", "Tanh"};
    for (int i = 0; i < 6; ++i) {
        Output y = conv(b, x, 2, 2, "fan" + std::to_string(i) + "/conv", 40 + i);
        branches.push_back(b.op(kinds[i % 3], {y}, {}, "fan" + std::to_string(i) + "/act"));
    }
    std::vector<Output> joined;
    for (int i = 0; i < 6; i += 2)
        joined.push_back(b.op(i % 4 ? "Multiply" : "Add", {branches[i], branches[i + 1]}, {}, "join" + std::to_string(i / 2)));
    Output cat = b.op("Concat", joined, {{"axis", "1"}}, "concat");
    b.result(b.op("Relu", {cat}, {}, "out"), "y");
    b.result(branches[0], "first_branch");
    Core core;
    check_random_placements(core, b.build());
}

TEST(HeteroRandomAffinity, DeviceInstances) {
    // Two instances of ACCEL listed separately: ops spread over ACCEL.0, ACCEL.1, NPU and REFERENCE.
    TempRegistry reg;
    add_build_devices(reg, {"ACCEL"});
    reg.add("ACCEL", reference_plugin(),
            {{"SUPPORTED_OPS", "Convolution,GroupConvolution,MaxPool,AvgPool,Relu,Add"}, {"INSTANCES", 2}});
    reg.write();
    Core core(reg.path());
    check_random_placements(core, branchy_model(), {"ACCEL.0", "ACCEL.1", "NPU", "REFERENCE"}, 15);
}

}  // namespace
}  // namespace mosaic::test::hetero
