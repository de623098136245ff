// Properties: what each subgraph's device compiles with (DEVICE_PROPERTIES, forwarded keys, the
// device's own settings, in the contract's order of precedence), profiling records, and the
// compiled model's properties.
#include "hetero/hetero_test_util.hpp"

namespace mosaic::test::hetero {
namespace {

// The subgraph number of a "subgraph<N>: ..." record, or -1.
int64_t subgraph_of_record(const ProfilingInfo& p) {
    static const std::string prefix = "subgraph";
    if (p.node_name.rfind(prefix, 0) != 0) return -1;
    const size_t colon = p.node_name.find(": ");
    if (colon == std::string::npos) return -1;
    try {
        return std::stoll(p.node_name.substr(prefix.size(), colon - prefix.size()));
    } catch (const std::exception&) {
        return -1;
    }
}

bool is_transfer_record(const ProfilingInfo& p) { return p.node_name.rfind("transfer: ", 0) == 0; }

struct Profile {
    std::set<int64_t> subgraphs;  // subgraphs with at least one record
    std::vector<ProfilingInfo> transfers;
    std::vector<std::string> others;
};

Profile profile_of(CompiledModel& compiled) {
    InferRequest r = compiled.create_infer_request();
    const auto inputs = inputs_for(compiled);
    for (size_t i = 0; i < inputs.size(); ++i) r.set_input_tensor(i, inputs[i]);
    r.infer();
    Profile p;
    for (const auto& rec : r.get_profiling_info()) {
        if (int64_t id = subgraph_of_record(rec); id >= 0) p.subgraphs.insert(id);
        else if (is_transfer_record(rec)) p.transfers.push_back(rec);
        else p.others.push_back(rec.node_name);
    }
    return p;
}

std::string describe(const std::set<int64_t>& ids) {
    std::string s = "{";
    for (int64_t id : ids) s += (s.size() > 1 ? "," : "") + std::to_string(id);
    return s + "}";
}

TEST(HeteroProfiling, RecordsForEverySubgraphAndEveryTransfer) {
    Core core;
    auto model = scattered_chain_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE", {properties::enable_profiling(true)});
    const json split = split_of(compiled);
    const Profile p = profile_of(compiled);
    std::set<int64_t> all;
    for (const auto& s : split["subgraphs"]) all.insert(s["id"].get<int64_t>());
    EXPECT_EQ(p.subgraphs, all) << "records came from subgraphs " << describe(p.subgraphs);
    EXPECT_TRUE(p.others.empty()) << "a record without a subgraph or transfer prefix: " << p.others.front();
    ASSERT_EQ(p.transfers.size(), split["transfers"].size());
    for (const auto& t : split["transfers"]) {
        const std::string name = "transfer: " + t["tensor"].get<std::string>() + " subgraph" + std::to_string(t["from_subgraph"].get<int64_t>()) +
                                 " (" + t["from_device"].get<std::string>() + ") -> subgraph" +
                                 std::to_string(t["to_subgraph"].get<int64_t>()) + " (" + t["to_device"].get<std::string>() +
                                 "), " + std::to_string(t["bytes"].get<int64_t>()) + " bytes";
        bool found = false;
        for (const auto& rec : p.transfers)
            if (rec.node_name == name) {
                found = true;
                EXPECT_EQ(rec.node_type, "Transfer");
                EXPECT_EQ(rec.exec_type, "zero-copy");  // both devices read the host tensor in place
                EXPECT_EQ(rec.status, ProfilingInfo::Status::executed);
            }
        EXPECT_TRUE(found) << "no record named \"" << name << "\"; transfer records: " << [&] {
            std::string all_names;
            for (const auto& rec : p.transfers) all_names += "\n  " + rec.node_name;
            return all_names;
        }();
    }
}

TEST(HeteroProfiling, NoRecordsWithoutPerfCount) {
    Core core;
    CompiledModel compiled = core.compile_model(scattered_chain_model(), "HETERO:ACCEL,REFERENCE");
    const Profile p = profile_of(compiled);
    EXPECT_TRUE(p.subgraphs.empty()) << describe(p.subgraphs);
    EXPECT_TRUE(p.transfers.empty());
}

TEST(HeteroDeviceProperties, PerfCountForOneDevice) {
    Core core;
    auto model = scattered_chain_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE",
                                                {properties::device::properties({{"ACCEL", {{"PERF_COUNT", true}}}})});
    const json split = split_of(compiled);
    EXPECT_EQ(profile_of(compiled).subgraphs, subgraphs_on(split, "ACCEL"));
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
    // OpenVINO's spelling of the value works too.
    CompiledModel yes = core.compile_model(model, "HETERO:ACCEL,REFERENCE",
                                           {{"DEVICE_PROPERTIES", {{"REFERENCE", {{"PERF_COUNT", "YES"}}}}}});
    EXPECT_EQ(profile_of(yes).subgraphs, subgraphs_on(split_of(yes), "REFERENCE"));
}

TEST(HeteroDeviceProperties, CoreSettingOfTheDeviceApplies) {
    Core core;
    auto model = scattered_chain_model();
    core.set_property("ACCEL", {properties::enable_profiling(true)});
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
    EXPECT_EQ(profile_of(compiled).subgraphs, subgraphs_on(split_of(compiled), "ACCEL"));
}

TEST(HeteroDeviceProperties, DevicePropertiesWinOverTheCoreSetting) {
    Core core;
    auto model = scattered_chain_model();
    core.set_property("ACCEL", {properties::enable_profiling(true)});
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE",
                                                {properties::device::properties({{"ACCEL", {{"PERF_COUNT", false}}},
                                                                                 {"REFERENCE", {{"PERF_COUNT", true}}}})});
    EXPECT_EQ(profile_of(compiled).subgraphs, subgraphs_on(split_of(compiled), "REFERENCE"));
}

TEST(HeteroDeviceProperties, DevicePropertiesWinOverForwardedKeys) {
    Core core;
    auto model = scattered_chain_model();
    CompiledModel compiled = core.compile_model(
        model, "HETERO:ACCEL,REFERENCE",
        {properties::enable_profiling(true), properties::device::properties({{"REFERENCE", {{"PERF_COUNT", false}}}})});
    const json split = split_of(compiled);
    const Profile p = profile_of(compiled);
    EXPECT_EQ(p.subgraphs, subgraphs_on(split, "ACCEL"));
    EXPECT_EQ(p.transfers.size(), split["transfers"].size());  // HETERO's own records stay
}

TEST(HeteroDeviceProperties, ForwardedKeyIsAccepted) {
    Core core;
    auto model = scattered_chain_model();
    EXPECT_TRUE(matches_reference(core, model, "HETERO:ACCEL,REFERENCE", {properties::hint::inference_precision("f32")}));
    EXPECT_TRUE(matches_reference(core, model, "HETERO:ACCEL,NPU,REFERENCE", {properties::inference_num_threads(1)}));
    // A forwarded key is still validated by the device.
    const std::string msg = error_of([&] {
        core.compile_model(model, "HETERO:ACCEL,REFERENCE", {properties::hint::inference_precision("int3")});
    });
    EXPECT_CONTAINS(msg, "INFERENCE_PRECISION_HINT");
}

TEST(HeteroDeviceProperties, KeyNoDeviceDeclaresIsNamed) {
    Core core;
    auto model = scattered_chain_model();
    const std::string msg = error_of([&] {
        core.compile_model(model, "HETERO:ACCEL,REFERENCE", {{"NOT_A_PROPERTY", 1}});
    });
    EXPECT_CONTAINS(msg, "NOT_A_PROPERTY");
    EXPECT_CONTAINS(msg, "ACCEL");
    EXPECT_CONTAINS(msg, "REFERENCE");
    // Also inside DEVICE_PROPERTIES, where the device itself refuses it.
    const std::string inner = error_of([&] {
        core.compile_model(model, "HETERO:ACCEL,REFERENCE",
                           {properties::device::properties({{"ACCEL", {{"NOT_A_PROPERTY", 1}}}})});
    });
    EXPECT_CONTAINS(inner, "NOT_A_PROPERTY");
    EXPECT_CONTAINS(inner, "ACCEL");
}

TEST(HeteroCompiledModel, Properties) {
    Core core;
    auto model = scattered_chain_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    const json split = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split, *model));
    // NPU runs Sigmoid and Tanh; REFERENCE gets nothing.
    EXPECT_EQ(compiled.get_property("EXECUTION_DEVICES"), json::array({"ACCEL", "NPU"}));
    EXPECT_EQ(compiled.get_property("HETERO_NUMBER_OF_SUBGRAPHS"), 5);
    EXPECT_EQ(compiled.get_property("HETERO_NUMBER_OF_SUBMODELS"), 5);
    EXPECT_EQ(split["subgraphs"].size(), 5u);
    const json optimal = compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS");
    ASSERT_TRUE(optimal.is_number_integer()) << optimal.dump();
    EXPECT_GE(optimal.get<int64_t>(), 1);
    EXPECT_EQ(compiled.get_property("NETWORK_NAME"), "scattered_chain");
    EXPECT_EQ(compiled.device().rfind("HETERO", 0), 0u) << compiled.device();
    ASSERT_EQ(split["devices"].size(), 3u);
    // (split_is_consistent checked each entry's op count against the subgraphs' op lists.)
    EXPECT_EQ(split["devices"][0]["device"], "ACCEL");
    EXPECT_EQ(split["devices"][0]["subgraphs"], 3);
    EXPECT_EQ(split["devices"][1]["device"], "NPU");
    EXPECT_EQ(split["devices"][1]["subgraphs"], 2);
    EXPECT_EQ(split["devices"][2], (json{{"device", "REFERENCE"}, {"ops", 0}, {"subgraphs", 0}}));
    // Four crossings of one [1,4,8,8] f32 tensor each.
    EXPECT_EQ(split["transfers"].size(), 4u);
    EXPECT_EQ(split["transfer_bytes"], 4 * 1024);
    EXPECT_EQ(compiled.inputs().size(), 1u);
    EXPECT_EQ(compiled.outputs().size(), 1u);
    EXPECT_EQ(compiled.outputs()[0].shape, (Shape{1, 4, 8, 8}));
}

TEST(HeteroCompiledModel, InputsAndOutputsByName) {
    Core core;
    auto model = branchy_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    CompiledModel ref = core.compile_model(model, "REFERENCE");
    const Tensor x = inputs_for(compiled)[0];
    InferRequest r = compiled.create_infer_request(), rr = ref.create_infer_request();
    r.set_tensor("x", x);
    rr.set_tensor("x", x);
    r.infer();
    rr.infer();
    for (const std::string name : {"out_prob", "out_left"})
        EXPECT_TRUE(outputs_near({r.get_tensor(name).to_vector<float>()}, {rr.get_tensor(name).to_vector<float>()})) << name;
    // A wrong shape is refused with both shapes named, as on any device.
    EXPECT_THROW(r.set_tensor("x", Tensor(ElementType::f32, {1, 3, 4, 4})), std::invalid_argument);
}

TEST(HeteroCompiledModel, RequestsAreReusable) {
    Core core;
    auto model = residual_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    CompiledModel ref = core.compile_model(model, "REFERENCE");
    InferRequest r = compiled.create_infer_request();
    for (int seed = 0; seed < 5; ++seed) {
        const auto inputs = inputs_for(compiled, seed);
        r.set_input_tensor(inputs[0]);
        if (seed % 2) {
            r.start_async();
            r.wait();
        } else {
            r.infer();
        }
        EXPECT_TRUE(outputs_near({r.get_output_tensor().to_vector<float>()}, run(ref, inputs))) << "seed " << seed;
    }
}

}  // namespace
}  // namespace mosaic::test::hetero
