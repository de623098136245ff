// Which device runs each op: the automatic choice (first device in priority order that supports
// the op), its explanation, user-set affinities (every op or some), and the errors.
#include "hetero/hetero_test_util.hpp"

namespace mosaic::test::hetero {
namespace {

const std::vector<std::string> kAccelRef = {"ACCEL", "REFERENCE"};
const std::vector<std::string> kThree = {"ACCEL", "NPU", "REFERENCE"};

std::string hetero(const std::vector<std::string>& devices) {
    std::string s = "HETERO:";
    for (size_t i = 0; i < devices.size(); ++i) s += (i ? "," : "") + devices[i];
    return s;
}

TEST(HeteroAutomaticAffinity, EachOpGoesToTheFirstDeviceThatSupportsIt) {
    Core core;
    for (const auto& model : {branchy_model(), residual_model(), scattered_chain_model()}) {
        for (const auto& devices : {kAccelRef, kThree}) {
            SCOPED_TRACE(model->get_friendly_name() + " on " + hetero(devices));
            const auto supported = supported_ops(core, model, devices);
            QueryResult q = core.query_model_details(model, hetero(devices));
            EXPECT_TRUE(q.unsupported.empty());
            for (const std::string& op : compute_ops(*model)) {
                ASSERT_TRUE(q.affinity.count(op)) << op << " has no affinity";
                EXPECT_EQ(q.affinity.at(op), first_supporting(supported, devices, op)) << op;
            }
            CompiledModel compiled = core.compile_model(model, hetero(devices));
            const json split = split_of(compiled);
            EXPECT_TRUE(split_is_consistent(split, *model));
            EXPECT_TRUE(transfers_are_as_expected(split, *model));
            for (const std::string& op : compute_ops(*model)) EXPECT_EQ(split["affinity"][op], q.affinity.at(op)) << op;
        }
    }
}

TEST(HeteroAutomaticAffinity, BoundaryNodesFollowTheirNeighbours) {
    Core core;
    auto model = branchy_model();
    QueryResult q = core.query_model_details(model, "HETERO:ACCEL,NPU,REFERENCE");
    for (const auto& node : model->get_ops()) {
        ASSERT_TRUE(q.affinity.count(node->get_friendly_name())) << node->get_friendly_name() << " has no affinity";
        if (node->is_result()) {
            // A result goes where its producer runs.
            EXPECT_EQ(q.affinity.at(node->get_friendly_name()), q.affinity.at(node->input(0).node->get_friendly_name())) << node->get_friendly_name();
        } else if (node->is_constant() || node->is_parameter()) {
            // A constant or parameter goes with (its first) consumer.
            std::set<std::string> consumer_devices;
            for (const auto& other : model->get_ops())
                for (const auto& in : other->inputs())
                    if (in.node == node) consumer_devices.insert(q.affinity.at(other->get_friendly_name()));
            EXPECT_TRUE(consumer_devices.count(q.affinity.at(node->get_friendly_name())))
                << node->get_friendly_name() << " is on " << q.affinity.at(node->get_friendly_name()) << ", which none of its consumers uses";
        }
    }
}

TEST(HeteroAutomaticAffinity, ExplanationGivesTheReasonsForPassingOver) {
    Core core;
    auto model = scattered_chain_model();
    QueryResult q = core.query_model_details(model, "HETERO:ACCEL,REFERENCE");
    ASSERT_TRUE(q.explanation.count("sigmoid"));
    const std::string& why = q.explanation.at("sigmoid");
    EXPECT_CONTAINS(why, "ACCEL");
    EXPECT_CONTAINS(why, "not in SUPPORTED_OPS of device ACCEL");  // ACCEL's own reason, passed on
    EXPECT_CONTAINS(why, "chosen: REFERENCE");
    ASSERT_TRUE(q.explanation.count("conv1"));
    EXPECT_CONTAINS(q.explanation.at("conv1"), "chosen: ACCEL");
}

TEST(HeteroAutomaticAffinity, OpsNoDeviceSupportsAreReportedByQuery) {
    Core core;
    auto model = scattered_chain_model();
    QueryResult q = core.query_model_details(model, "HETERO:ACCEL");
    for (const std::string op : {"sigmoid", "tanh"}) {
        ASSERT_TRUE(q.unsupported.count(op)) << op;
        // The contract keys the reason by "HETERO"; Core keys a query's reasons by the device
        // string it was called with ("HETERO:ACCEL"). Either names the orchestrator.
        const auto& reasons = q.unsupported.at(op);
        ASSERT_EQ(reasons.size(), 1u) << op;
        EXPECT_TRUE(reasons.begin()->first == "HETERO" || reasons.begin()->first == "HETERO:ACCEL")
            << op << ": reason keyed by '" << reasons.begin()->first << "'";
        EXPECT_CONTAINS(reasons.begin()->second, "ACCEL");
        EXPECT_CONTAINS(reasons.begin()->second, "SUPPORTED_OPS");  // ACCEL's own reason, passed on
    }
    EXPECT_EQ(q.affinity.at("conv1"), "ACCEL");
    EXPECT_FALSE(q.unsupported.count("conv1"));
}

TEST(HeteroAutomaticAffinity, CompileNamesEveryOpNoDeviceSupports) {
    Core core;
    auto model = scattered_chain_model();
    const std::string msg = error_of([&] { core.compile_model(model, "HETERO:ACCEL"); });
    EXPECT_CONTAINS(msg, "sigmoid");
    EXPECT_CONTAINS(msg, "tanh");
    EXPECT_CONTAINS(msg, "ACCEL");
    // With two devices that both lack the op, both are named.
    ModelBuilder b("softmax_only");
    Output x = b.parameter("x", ElementType::f32, {1, 4});
    b.result(b.op("Exp", {b.op("Relu", {x}, {}, "relu")}, {}, "exp"), "y");
    const std::string msg2 = error_of([&] { core.compile_model(b.build(), "HETERO:ACCEL,NPU"); });
    EXPECT_CONTAINS(msg2, "exp");
    EXPECT_CONTAINS(msg2, "ACCEL");
    EXPECT_CONTAINS(msg2, "NPU");
}

// ---- affinities set by the user ----

void set_affinities(Model& model, const std::map<std::string, std::string>& affinity) {
    for (const auto& [op, device] : affinity) {
        Node* n = model.find_node(op);
        ASSERT_NE(n, nullptr) << op;
        n->get_rt_info()["affinity"] = device;
    }
}

TEST(HeteroManualAffinity, EveryNodeSetFromAnEditedQuery) {
    Core core;
    auto model = branchy_model();
    const SupportedOpsMap q = core.query_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    std::map<std::string, std::string> edited = q;
    // Move some ops down to REFERENCE, the OpenVINO way: query, edit, write back, compile.
    for (const std::string op : {"left/relu", "concat", "pool", "prob"}) edited[op] = "REFERENCE";
    edited["out_prob"] = "REFERENCE";  // a result stays with its producer, as a careful user keeps it
    set_affinities(*model, edited);
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
    const json split = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split, *model));
    for (const std::string& op : compute_ops(*model)) EXPECT_EQ(split["affinity"][op], edited.at(op)) << op;
    // query_model does not depend on the affinities a user set (OpenVINO documents it so): asked
    // again, it answers from the devices' capabilities exactly as before the edit.
    EXPECT_EQ(core.query_model(model, "HETERO:ACCEL,NPU,REFERENCE"), q);
    QueryResult again = core.query_model_details(model, "HETERO:ACCEL,NPU,REFERENCE");
    EXPECT_EQ(again.affinity, q);
    ASSERT_TRUE(again.explanation.count("concat"));
    EXPECT_EQ(again.explanation.at("concat").find("affinity"), std::string::npos) << again.explanation.at("concat");
}

TEST(HeteroManualAffinity, EveryComputeOpSet) {
    Core core;
    auto model = residual_model();
    std::map<std::string, std::string> chosen;
    int i = 0;
    for (const std::string& op : compute_ops(*model)) chosen[op] = (i++ % 2) ? "REFERENCE" : "NPU";
    set_affinities(*model, chosen);
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
    const json split = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split, *model));
    for (const auto& [op, device] : chosen) EXPECT_EQ(split["affinity"][op], device) << op;
    // ACCEL is listed first but the user gave it nothing.
    EXPECT_EQ(compiled.get_property("EXECUTION_DEVICES"), json::array({"NPU", "REFERENCE"}));
}

// As OpenVINO documents it, the automatic mode is off as soon as one op carries an affinity: a
// model with some ops set and others not is refused, naming both and the way out.
TEST(HeteroManualAffinityErrors, SomeOpsSetAndOthersNotIsRefused) {
    Core core;
    auto model = branchy_model();
    set_affinities(*model, {{"right/conv", "REFERENCE"}, {"concat", "REFERENCE"}});
    const std::string msg = error_of([&] { core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE"); });
    EXPECT_CONTAINS(msg, "'right/conv' (Convolution) has affinity 'REFERENCE'");
    EXPECT_CONTAINS(msg, "automatic mode is off");
    EXPECT_CONTAINS(msg, "'left/conv'");
    EXPECT_CONTAINS(msg, "more have none");
    EXPECT_CONTAINS(msg, "query_model");
    // The query is not affected, and its answer set on every op compiles.
    SupportedOpsMap q = core.query_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    EXPECT_EQ(q.at("right/conv"), "ACCEL");
    q["right/conv"] = "REFERENCE";
    for (Node* node : model->get_ops()) node->get_rt_info()["affinity"] = q[node->get_friendly_name()];
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    EXPECT_EQ(split_of(compiled)["affinity"]["right/conv"], "REFERENCE");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
}

// The seeds' loop indexes the query result with operator[]: an op the query left out gets an
// empty affinity, which is no affinity, not a device named "".
TEST(HeteroManualAffinity, AnEmptyAffinityIsNone) {
    Core core;
    auto model = branchy_model();
    for (Node* node : model->get_ops()) node->get_rt_info()["affinity"] = "";
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
}

TEST(HeteroManualAffinityErrors, DeviceOutsideTheListNamesTheOpAndTheList) {
    Core core;
    auto model = branchy_model();
    SupportedOpsMap q = core.query_model(model, "HETERO:ACCEL,REFERENCE");
    q["pool"] = "NPU";  // registered, but not in this list
    for (Node* node : model->get_ops()) node->get_rt_info()["affinity"] = q[node->get_friendly_name()];
    const std::string msg = error_of([&] { core.compile_model(model, "HETERO:ACCEL,REFERENCE"); });
    EXPECT_CONTAINS(msg, "'pool'");
    EXPECT_CONTAINS(msg, "'NPU', which is not in the HETERO device list ACCEL,REFERENCE");
}

TEST(HeteroManualAffinityErrors, UnknownDeviceNamesTheOp) {
    Core core;
    auto model = scattered_chain_model();
    model->find_node("relu2")->get_rt_info()["affinity"] = "NOPE";
    const std::string msg = error_of([&] { core.compile_model(model, "HETERO:ACCEL,REFERENCE"); });
    EXPECT_CONTAINS(msg, "relu2");
    EXPECT_CONTAINS(msg, "NOPE");
}

TEST(HeteroManualAffinityErrors, DeviceThatCannotRunTheOpNamesTheOp) {
    Core core;
    auto model = scattered_chain_model();
    SupportedOpsMap q = core.query_model(model, "HETERO:ACCEL,REFERENCE");
    q["tanh"] = "ACCEL";
    for (Node* node : model->get_ops()) node->get_rt_info()["affinity"] = q[node->get_friendly_name()];
    const std::string msg = error_of([&] { core.compile_model(model, "HETERO:ACCEL,REFERENCE"); });
    EXPECT_CONTAINS(msg, "op 'tanh' (Tanh) has affinity 'ACCEL', but ACCEL cannot run it");
}

}  // namespace
}  // namespace mosaic::test::hetero
