// REFERENCE's SIMULATED_TIME (docs/hetero.md, "Where the costs come from"): an emulated device whose
// inferences last the sum of its cost estimates, as HETERO's plan predicts them, the time left after
// computing waited out and shown in the profile, the outputs unchanged.
#include "hetero/hetero_test_util.hpp"

#include <chrono>

namespace mosaic::test::hetero {
namespace {

TEST(SimulatedTime, AnInferenceLastsWhatThePlanPredictsAndItsProfileSaysSo) {
    Core core;
    core.set_property("ACCEL", {{"COST_FACTOR", 200.0}});  // what estimate_cost reads, and the compile with it
    const auto model = scattered_chain_model();
    // ACCEL runs the convolutions and ReLUs; their predicted time, with the factor, is the plan's.
    const QueryResult q = core.query_model_details(model, "HETERO:ACCEL,REFERENCE");
    double predicted = 0;
    for (const auto& s : q.plan.at("subgraphs"))
        if (s.at("device") == "ACCEL") predicted += s.at("predicted_us").get<double>();
    ASSERT_GT(predicted, 2000.0) << "the factor makes the simulated time dominate: " << q.plan.dump();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE",
                                                {{"PERF_COUNT", true},
                                                 {"DEVICE_PROPERTIES", AnyMap{{"ACCEL", AnyMap{{"SIMULATED_TIME", true}}}}}});
    InferRequest r = compiled.create_infer_request();
    const std::vector<Tensor> inputs = inputs_for(compiled);
    r.set_input_tensor(0, inputs[0]);
    const auto t0 = std::chrono::steady_clock::now();
    r.infer();
    const double took = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_GE(took, predicted) << "each ACCEL subgraph lasts at least its estimate";
    double waited = 0, accel_records = 0;
    for (const ProfilingInfo& p : r.get_profiling_info())
        if (p.node_type == "SimulatedTime") {
            EXPECT_NE(p.node_name.find("(simulated time)"), std::string::npos) << p.node_name;
            waited += static_cast<double>(p.real_time.count());
            ++accel_records;
        }
    EXPECT_EQ(accel_records, 3) << "one wait per ACCEL subgraph";
    EXPECT_GT(waited, 0.5 * predicted) << "most of the time is the wait: the kernels take far less";
    EXPECT_TRUE(outputs_near(run(compiled, inputs), reference_outputs(core, model)));
}

}  // namespace
}  // namespace mosaic::test::hetero
