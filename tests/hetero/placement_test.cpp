// HETERO_PLACEMENT=MIN_TRANSFER (moves ops to cut device crossings, never a user's affinity),
// ONE_DEVICE (the whole model on the first device that runs every op), and the limits
// HETERO_MAX_SUBGRAPHS and HETERO_MAX_FALLBACK_RATIO.
#include "hetero/hetero_test_util.hpp"

namespace mosaic::test::hetero {
namespace {

const AnyMap kMinTransfer = {{"HETERO_PLACEMENT", "MIN_TRANSFER"}};

TEST(HeteroPlacement, GreedyIsTheDefault) {
    Core core;
    auto model = scattered_chain_model();
    const json split = split_of(core.compile_model(model, "HETERO:ACCEL,REFERENCE"));
    EXPECT_EQ(split["placement"], "GREEDY");
    // ACCEL, REFERENCE (sigmoid), ACCEL, REFERENCE (tanh), ACCEL.
    EXPECT_EQ(split["subgraphs"].size(), 5u) << split.dump();
    const json explicit_greedy =
        split_of(core.compile_model(model, "HETERO:ACCEL,REFERENCE", {{"HETERO_PLACEMENT", "GREEDY"}}));
    EXPECT_EQ(explicit_greedy["affinity"], split["affinity"]);
}

TEST(HeteroPlacement, MinTransferGivesFewerSubgraphsAndTheSameOutputs) {
    Core core;
    auto model = scattered_chain_model();
    CompiledModel greedy = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
    CompiledModel min_transfer = core.compile_model(model, "HETERO:ACCEL,REFERENCE", kMinTransfer);
    const json g = split_of(greedy), m = split_of(min_transfer);
    EXPECT_EQ(m["placement"], "MIN_TRANSFER");
    EXPECT_TRUE(split_is_consistent(m, *model));
    EXPECT_LT(m["subgraphs"].size(), g["subgraphs"].size()) << "GREEDY: " << g.dump() << "\nMIN_TRANSFER: " << m.dump();
    EXPECT_LE(m["transfer_bytes"].get<int64_t>(), g["transfer_bytes"].get<int64_t>());
    EXPECT_EQ(min_transfer.get_property("HETERO_NUMBER_OF_SUBGRAPHS"), m["subgraphs"].size());
    EXPECT_TRUE(outputs_near(run(min_transfer), run(greedy)));
    EXPECT_TRUE(outputs_near(run(min_transfer), reference_outputs(core, model)));
    // Ops no device but REFERENCE runs stay there.
    EXPECT_EQ(m["affinity"]["sigmoid"], "REFERENCE");
    EXPECT_EQ(m["affinity"]["tanh"], "REFERENCE");
}

TEST(HeteroPlacement, MinTransferExplainsWhatItMoved) {
    Core core;
    auto model = scattered_chain_model();
    QueryResult greedy = core.query_model_details(model, "HETERO:ACCEL,REFERENCE");
    QueryResult moved = core.query_model_details(model, "HETERO:ACCEL,REFERENCE", kMinTransfer);
    int changes = 0;
    for (const std::string& op : compute_ops(*model)) {
        if (greedy.affinity.at(op) == moved.affinity.at(op)) continue;
        ++changes;
        ASSERT_TRUE(moved.explanation.count(op)) << op;
        EXPECT_CONTAINS(moved.explanation.at(op), "MIN_TRANSFER");
        EXPECT_CONTAINS(moved.explanation.at(op), greedy.affinity.at(op));  // "moved from <device>"
    }
    EXPECT_GT(changes, 0);
    // query and compile agree.
    const json split = split_of(core.compile_model(model, "HETERO:ACCEL,REFERENCE", kMinTransfer));
    for (const std::string& op : compute_ops(*model)) EXPECT_EQ(split["affinity"][op], moved.affinity.at(op)) << op;
}

// ONE_DEVICE: NPU runs every op of the scattered chain, so all of it goes there, past ACCEL, which
// runs most of them; each moved op says why.
TEST(HeteroPlacement, OneDevicePutsTheWholeModelOnTheFirstDeviceThatRunsAllOfIt) {
    Core core;
    const AnyMap one_device = {{"HETERO_PLACEMENT", "ONE_DEVICE"}};
    auto chain = scattered_chain_model();
    CompiledModel whole = core.compile_model(chain, "HETERO:ACCEL,NPU,REFERENCE", one_device);
    const json split = split_of(whole);
    EXPECT_EQ(split["placement"], "ONE_DEVICE");
    EXPECT_EQ(split["subgraphs"].size(), 1u) << split.dump();
    for (const std::string& op : compute_ops(*chain)) EXPECT_EQ(split["affinity"][op], "NPU") << op;
    EXPECT_TRUE(outputs_near(run(whole), reference_outputs(core, chain)));
    const QueryResult q = core.query_model_details(chain, "HETERO:ACCEL,NPU,REFERENCE", one_device);
    EXPECT_CONTAINS(q.explanation.at("conv1"), "ACCEL: runs it, but not every op of the model");
    EXPECT_CONTAINS(q.explanation.at("conv1"), "chosen: NPU, the first device that runs every op of the model");

    // The branchy model's Subtract runs on REFERENCE alone: all of it goes there.
    auto branchy = branchy_model();
    EXPECT_GT(split_of(core.compile_model(branchy, "HETERO:ACCEL,NPU,REFERENCE"))["subgraphs"].size(), 1u);
    const json on_reference = split_of(core.compile_model(branchy, "HETERO:ACCEL,NPU,REFERENCE", one_device));
    EXPECT_EQ(on_reference["subgraphs"].size(), 1u) << on_reference.dump();
    for (const std::string& op : compute_ops(*branchy)) EXPECT_EQ(on_reference["affinity"][op], "REFERENCE") << op;
}

TEST(HeteroPlacement, MinTransferDoesNotMoveManualAffinities) {
    Core core;
    auto model = scattered_chain_model();
    const std::map<std::string, std::string> pinned = {{"conv2", "ACCEL"}, {"relu2", "ACCEL"}, {"relu1", "REFERENCE"}};
    set_affinities_over_query(core, model, "HETERO:ACCEL,REFERENCE", pinned);
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE", kMinTransfer);
    const json split = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split, *model));
    // In the manual mode every op is pinned: MIN_TRANSFER moves none of them.
    for (const std::string& op : compute_ops(*model))
        EXPECT_EQ(split["affinity"][op], model->get_op(op)->get_rt_info().at("affinity").as<std::string>()) << op;
    for (const auto& [op, device] : pinned) EXPECT_EQ(split["affinity"][op], device) << op;
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
}

TEST(HeteroPlacement, MinTransferTakesTheTransferOverhead) {
    Core core;
    auto model = scattered_chain_model();
    // With crossings free of cost there is nothing to gain by moving ops off ACCEL.
    const json free_crossings = split_of(core.compile_model(
        model, "HETERO:ACCEL,REFERENCE", {{"HETERO_PLACEMENT", "MIN_TRANSFER"}, {"HETERO_TRANSFER_OVERHEAD_US", 0}}));
    const json costly = split_of(core.compile_model(
        model, "HETERO:ACCEL,REFERENCE", {{"HETERO_PLACEMENT", "MIN_TRANSFER"}, {"HETERO_TRANSFER_OVERHEAD_US", 100000}}));
    EXPECT_LE(costly["subgraphs"].size(), free_crossings["subgraphs"].size());
    EXPECT_EQ(costly["subgraphs"].size(), 1u) << costly.dump();
}

TEST(HeteroPlacement, UnknownPlacementIsRefused) {
    Core core;
    const std::string msg = error_of([&] {
        core.compile_model(scattered_chain_model(), "HETERO:ACCEL,REFERENCE", {{"HETERO_PLACEMENT", "FASTEST"}});
    });
    EXPECT_CONTAINS(msg, "HETERO_PLACEMENT");
    EXPECT_CONTAINS(msg, "MIN_TRANSFER");  // lists what it accepts
}

TEST(HeteroLimits, MaxSubgraphsNamesBothNumbers) {
    Core core;
    auto model = scattered_chain_model();
    const std::string msg = error_of([&] {
        core.compile_model(model, "HETERO:ACCEL,REFERENCE", {{"HETERO_MAX_SUBGRAPHS", 2}});
    });
    EXPECT_CONTAINS(msg, "5");
    EXPECT_CONTAINS(msg, "2");
    EXPECT_CONTAINS(msg, "HETERO_MAX_SUBGRAPHS");
    // At the limit, and with no limit (0), it compiles.
    EXPECT_TRUE(matches_reference(core, model, "HETERO:ACCEL,REFERENCE", {{"HETERO_MAX_SUBGRAPHS", 5}}));
    EXPECT_TRUE(matches_reference(core, model, "HETERO:ACCEL,REFERENCE", {{"HETERO_MAX_SUBGRAPHS", 0}}));
    // MIN_TRANSFER can bring the split under the limit.
    EXPECT_TRUE(matches_reference(core, model, "HETERO:ACCEL,REFERENCE",
                                  {{"HETERO_MAX_SUBGRAPHS", 4}, {"HETERO_PLACEMENT", "MIN_TRANSFER"}}));
}

TEST(HeteroLimits, MaxFallbackRatio) {
    Core core;
    auto model = scattered_chain_model();  // 8 ops, 2 of them (sigmoid, tanh) off ACCEL: 0.25
    const std::string msg = error_of([&] {
        core.compile_model(model, "HETERO:ACCEL,REFERENCE", {{"HETERO_MAX_FALLBACK_RATIO", 0.1}});
    });
    EXPECT_CONTAINS(msg, "HETERO_MAX_FALLBACK_RATIO");
    EXPECT_TRUE(matches_reference(core, model, "HETERO:ACCEL,REFERENCE", {{"HETERO_MAX_FALLBACK_RATIO", 0.25}}));
    EXPECT_TRUE(matches_reference(core, model, "HETERO:ACCEL,REFERENCE", {{"HETERO_MAX_FALLBACK_RATIO", 0.5}}));
    // Everything on the first device: ratio 0 is fine.
    EXPECT_TRUE(matches_reference(core, conv_relu_model(), "HETERO:ACCEL,REFERENCE", {{"HETERO_MAX_FALLBACK_RATIO", 0}}));
}

TEST(HeteroLimits, BadLimitValuesAreRefused) {
    Core core;
    auto model = scattered_chain_model();
    EXPECT_CONTAINS(error_of([&] {
                        core.compile_model(model, "HETERO:ACCEL,REFERENCE", {{"HETERO_MAX_FALLBACK_RATIO", 1.5}});
                    }),
                    "HETERO_MAX_FALLBACK_RATIO");
    EXPECT_CONTAINS(error_of([&] {
                        core.compile_model(model, "HETERO:ACCEL,REFERENCE", {{"HETERO_MAX_SUBGRAPHS", -1}});
                    }),
                    "HETERO_MAX_SUBGRAPHS");
    EXPECT_CONTAINS(error_of([&] {
                        core.compile_model(model, "HETERO:ACCEL,REFERENCE", {{"HETERO_MAX_SUBGRAPHS", "many"}});
                    }),
                    "HETERO_MAX_SUBGRAPHS");
}

}  // namespace
}  // namespace mosaic::test::hetero
