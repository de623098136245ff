// Overlap, proven without clocks: subgraphs placed on RENDEZVOUS devices (tests/plugins/
// rendezvous_plugin.cpp) only finish when PARTIES inferences are inside RENDEZVOUS devices at once,
// so these tests pass only if HETERO runs the subgraphs concurrently. Run serially, an inference
// fails after TIMEOUT_MS with an error that says it waited alone.
#include "hetero/hetero_test_util.hpp"

#include <chrono>

namespace mosaic::test::hetero {
namespace {

class HeteroOverlap : public ::testing::Test {
protected:
    void SetUp() override {
        add_build_devices(reg);
        reg.add("RV_A", rendezvous_plugin());
        reg.add("RV_B", rendezvous_plugin());
        reg.write();
    }

    static void place(Model& model, const std::map<std::string, std::string>& affinity) {
        for (const auto& [op, device] : affinity) model.find_node(op)->get_rt_info()["affinity"] = device;
    }

    TempRegistry reg;
};

// x -> relu (RV_A) -----------------+
// x -> multiply by c (RV_B) --------+-> add (REFERENCE) -> y
TEST_F(HeteroOverlap, IndependentSubgraphsOfOneRequestRunTogether) {
    ModelBuilder b("two_branches");
    Output x = b.parameter("x", ElementType::f32, {2, 8});
    Output left = b.op("Relu", {x}, {}, "left");
    Output right = b.op("Multiply", {x, b.constant<float>({8}, pattern(8, 3), "c")}, {}, "right");
    b.result(b.op("Add", {left, right}, {}, "join"), "y");
    auto model = b.build();
    place(*model, {{"left", "RV_A"}, {"right", "RV_B"}, {"join", "REFERENCE"}});
    Core core(reg.path());
    CompiledModel compiled = core.compile_model(model, "HETERO:RV_A,RV_B,REFERENCE");
    const json split = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split, *model));
    ASSERT_EQ(split["subgraphs"].size(), 3u) << split.dump();
    InferRequest r = compiled.create_infer_request();
    CompiledModel ref = core.compile_model(model, "REFERENCE");
    for (int i = 0; i < 5; ++i) {
        const auto inputs = inputs_for(compiled, i);
        r.set_input_tensor(inputs[0]);
        if (i % 2) {
            r.infer();
        } else {
            r.start_async();
            r.wait();
        }
        EXPECT_TRUE(outputs_near({r.get_output_tensor().to_vector<float>()}, run(ref, inputs))) << "run " << i;
    }
}

// The subgraphs on RV_A and RV_B are independent but at different depths: RV_B's waits for a
// REFERENCE subgraph first. A scheduler that runs subgraphs level by level (all of depth 0, then
// all of depth 1) keeps RV_A's subgraph waiting alone; a dataflow one starts each when its inputs
// are ready.
//   x -> relu (RV_A) ------------------------------+
//   x -> sigmoid (REFERENCE) -> multiply (RV_B) ---+-> add (REFERENCE) -> y
TEST_F(HeteroOverlap, IndependentSubgraphsAtDifferentDepthsRunTogether) {
    ModelBuilder b("uneven_branches");
    Output x = b.parameter("x", ElementType::f32, {2, 8});
    Output left = b.op("Relu", {x}, {}, "left");
    Output gate = b.op("Sigmoid", {x}, {}, "gate");
    Output right = b.op("Multiply", {gate, x}, {}, "right");
    b.result(b.op("Add", {left, right}, {}, "join"), "y");
    auto model = b.build();
    place(*model, {{"left", "RV_A"}, {"gate", "REFERENCE"}, {"right", "RV_B"}, {"join", "REFERENCE"}});
    Core core(reg.path());
    CompiledModel compiled = core.compile_model(model, "HETERO:RV_A,RV_B,REFERENCE");
    EXPECT_TRUE(split_is_consistent(split_of(compiled), *model));
    CompiledModel ref = core.compile_model(model, "REFERENCE");
    for (int i = 0; i < 3; ++i) {
        const auto inputs = inputs_for(compiled, i);
        EXPECT_TRUE(outputs_near(run(compiled, inputs), run(ref, inputs))) << "run " << i;
    }
}

// Two requests in flight on a chain RV_A -> RV_B: each stage only completes when both requests
// are inside it at once, so the requests must not be serialised by HETERO.
TEST_F(HeteroOverlap, RequestsInFlightOverlap) {
    ModelBuilder b("chain");
    Output x = b.parameter("x", ElementType::f32, {4, 4});
    Output s0 = b.op("Relu", {x}, {}, "stage0");
    b.result(b.op("Sigmoid", {s0}, {}, "stage1"), "y");
    auto model = b.build();
    place(*model, {{"stage0", "RV_A"}, {"stage1", "RV_B"}});
    Core core(reg.path());
    CompiledModel compiled = core.compile_model(model, "HETERO:RV_A,RV_B");
    ASSERT_EQ(split_of(compiled)["subgraphs"].size(), 2u);
    CompiledModel ref = core.compile_model(model, "REFERENCE");
    InferRequest first = compiled.create_infer_request(), second = compiled.create_infer_request();
    for (int round = 0; round < 4; ++round) {
        const auto in1 = inputs_for(compiled, 2 * round), in2 = inputs_for(compiled, 2 * round + 1);
        first.set_input_tensor(in1[0]);
        second.set_input_tensor(in2[0]);
        first.start_async();
        second.start_async();
        first.wait();
        second.wait();
        EXPECT_TRUE(outputs_near({first.get_output_tensor().to_vector<float>()}, run(ref, in1))) << "round " << round;
        EXPECT_TRUE(outputs_near({second.get_output_tensor().to_vector<float>()}, run(ref, in2))) << "round " << round;
    }
}

// Requests in flight on two different HETERO compiled models: one model's subgraph on RV_A meets
// the other's on RV_B.
TEST_F(HeteroOverlap, TwoModelsOverlapAcrossDevices) {
    auto make = [](const std::string& device) {
        ModelBuilder b("on_" + device);
        Output x = b.parameter("x", ElementType::f32, {3, 3});
        Output y = b.op("Relu", {x}, {}, "relu");
        b.result(b.op("Exp", {y}, {}, "exp"), "y");  // Exp runs on REFERENCE only
        auto m = b.build();
        m->find_node("relu")->get_rt_info()["affinity"] = device;
        m->find_node("exp")->get_rt_info()["affinity"] = "REFERENCE";
        return m;
    };
    Core core(reg.path());
    CompiledModel on_a = core.compile_model(make("RV_A"), "HETERO:RV_A,RV_B,REFERENCE");
    CompiledModel on_b = core.compile_model(make("RV_B"), "HETERO:RV_A,RV_B,REFERENCE");
    InferRequest ra = on_a.create_infer_request(), rb = on_b.create_infer_request();
    const auto ia = inputs_for(on_a, 1), ib = inputs_for(on_b, 2);
    ra.set_input_tensor(ia[0]);
    rb.set_input_tensor(ib[0]);
    ra.start_async();
    rb.start_async();
    ra.wait();
    rb.wait();
    CompiledModel ref = core.compile_model(make("RV_A"), "REFERENCE");
    EXPECT_TRUE(outputs_near({ra.get_output_tensor().to_vector<float>()}, run(ref, ia)));
    EXPECT_TRUE(outputs_near({rb.get_output_tensor().to_vector<float>()}, run(ref, ib)));
}

// A key only the RENDEZVOUS devices declare reaches them, given to HETERO directly (forwarded) or
// through DEVICE_PROPERTIES: with PARTIES 1 a lone inference needs no partner.
TEST_F(HeteroOverlap, DeviceOwnKeysReachTheDevice) {
    ModelBuilder b("lone");
    Output x = b.parameter("x", ElementType::f32, {2, 2});
    b.result(b.op("Exp", {b.op("Relu", {x}, {}, "relu")}, {}, "exp"), "y");
    auto model = b.build();
    Core core(reg.path());
    const auto expected = reference_outputs(core, model);
    CompiledModel forwarded = core.compile_model(model, "HETERO:RV_A,REFERENCE", {{"PARTIES", 1}});
    EXPECT_EQ(split_of(forwarded)["affinity"]["relu"], "RV_A");
    EXPECT_TRUE(outputs_near(run(forwarded), expected));
    CompiledModel per_device = core.compile_model(
        model, "HETERO:RV_A,REFERENCE", {properties::device::properties({{"RV_A", {{"PARTIES", 1}}}})});
    EXPECT_TRUE(outputs_near(run(per_device), expected));
}

// Without a partner the inference fails with the device's message (after TIMEOUT_MS, short here).
// An error-path test rather than an overlap test, so it is not in the TSan stage's filter.
class HeteroSubgraphErrors : public HeteroOverlap {};

TEST_F(HeteroSubgraphErrors, ReachTheCallerSyncAndAsync) {
    ModelBuilder b("lone");
    Output x = b.parameter("x", ElementType::f32, {2, 2});
    b.result(b.op("Exp", {b.op("Relu", {x}, {}, "relu")}, {}, "exp"), "y");
    auto model = b.build();
    Core core(reg.path());
    CompiledModel compiled = core.compile_model(
        model, "HETERO:RV_A,REFERENCE", {properties::device::properties({{"RV_A", {{"TIMEOUT_MS", 200}}}})});
    InferRequest r = compiled.create_infer_request();
    r.set_input_tensor(inputs_for(compiled)[0]);
    const std::string sync_msg = error_of([&] { r.infer(); });
    EXPECT_CONTAINS(sync_msg, "RV_A");
    EXPECT_CONTAINS(sync_msg, "did not run them concurrently");
    r.start_async();
    const std::string async_msg = error_of([&] { r.wait(); });
    EXPECT_CONTAINS(async_msg, "did not run them concurrently");
    // The failed request works again once it has a partner: a second request in flight.
    InferRequest partner = compiled.create_infer_request();
    partner.set_input_tensor(inputs_for(compiled, 1)[0]);
    r.start_async();
    partner.start_async();
    r.wait();
    partner.wait();
    CompiledModel ref = core.compile_model(model, "REFERENCE");
    EXPECT_TRUE(outputs_near({r.get_output_tensor().to_vector<float>()}, run(ref, inputs_for(compiled))));
    EXPECT_TRUE(outputs_near({partner.get_output_tensor().to_vector<float>()}, run(ref, inputs_for(compiled, 1))));
}

}  // namespace
}  // namespace mosaic::test::hetero
