// The application surface spelled as OpenVINO's (get_ops, get_rt_info, SupportedOpsMap, typed
// variadic properties, ports), and the strictness found by trying the seed workflows: property
// keys refused when set, DEVICE_PROPERTIES sections for devices outside the list, spaced lists.
#include "hetero/hetero_test_util.hpp"

namespace mosaic::test::hetero {
namespace {

// The ports throw std::out_of_range / std::logic_error, Any std::invalid_argument, as the standard
// library would; error_of expects a runtime_error.
std::string message_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        return e.what();
    }
    ADD_FAILURE() << "no exception";
    return "";
}

TEST(OvApiModel, OpsParametersResultsAndPorts) {
    auto model = branchy_model();
    EXPECT_EQ(model->get_ops().size(), model->get_ops_count());
    EXPECT_EQ(model->get_ordered_ops().size(), model->get_ops().size());
    ASSERT_EQ(model->get_parameters().size(), 1u);
    ASSERT_EQ(model->get_results().size(), 2u);

    ASSERT_EQ(model->inputs().size(), 1u);
    const Output in = model->input();
    EXPECT_EQ(in.get_any_name(), "x");
    EXPECT_EQ(in.get_element_type(), element::f32);
    EXPECT_EQ(in.get_partial_shape(), (Shape{1, 3, 8, 8}));
    EXPECT_EQ(in.get_shape(), (Shape{1, 3, 8, 8}));
    EXPECT_EQ(model->input("x").get_node(), in.get_node());
    EXPECT_EQ(model->input(0).get_node(), in.get_node());

    EXPECT_EQ(model->output(0).get_any_name(), "out_prob");
    EXPECT_EQ(model->output("out_left").get_partial_shape(), (Shape{1, 4, 8, 8}));
    EXPECT_EQ(model->output(1).get_element_type(), element::f32);

    // Mistakes name what there is.
    const std::string two = message_of([&] { model->output(); });
    EXPECT_CONTAINS(two, "2 outputs ('out_prob', 'out_left')");
    EXPECT_CONTAINS(message_of([&] { model->input("y"); }), "no input named 'y' (inputs: 'x')");
    EXPECT_CONTAINS(message_of([&] { model->output(5); }), "no output 5");

    model->reshape({{"x", {1, 3, -1, 8}}});
    EXPECT_CONTAINS(message_of([&] { model->input().get_shape(); }), "dynamic shape [1,3,?,8]");
}

TEST(OvApiModel, NodesSpellFriendlyNameTypeAndRuntimeInfo) {
    auto model = branchy_model();
    Node* conv = model->get_op("left/conv");
    EXPECT_EQ(conv->get_friendly_name(), "left/conv");
    EXPECT_EQ(conv->get_type_name(), "Convolution");
    EXPECT_EQ(conv->type_and_version(), "Convolution-opset1");

    conv->get_rt_info()["affinity"] = "CPU";
    EXPECT_EQ(conv->get_rt_info().at("affinity").as<std::string>(), "CPU");
    EXPECT_TRUE(conv->get_rt_info().at("affinity").is<std::string>());
    const std::string from_variable = "GPU";
    conv->get_rt_info()["affinity"] = from_variable;
    EXPECT_EQ(conv->get_rt_info().at("affinity"), "GPU");

    // Values that are not strings read back as OpenVINO's ov::Any does.
    conv->get_rt_info()["fused"] = true;
    conv->get_rt_info()["count"] = 3;
    conv->get_rt_info()["flag"] = "YES";
    EXPECT_TRUE(conv->get_rt_info().at("fused").as<bool>());
    EXPECT_EQ(conv->get_rt_info().at("count").as<int>(), 3);
    EXPECT_EQ(conv->get_rt_info().at("count").as<std::string>(), "3");
    EXPECT_TRUE(conv->get_rt_info().at("flag").as<bool>());
    EXPECT_CONTAINS(message_of([&] { conv->get_rt_info().at("affinity").as<bool>(); }), "\"GPU\" is not a boolean");
    EXPECT_CONTAINS(message_of([&] { conv->get_rt_info().at("affinity").as<double>(); }), "is not a number");

    // The documented one-liner with a name that does not exist: an error naming it, not a crash.
    const std::string msg = error_of([&] { model->get_op("left/cnv")->get_rt_info()["affinity"] = "CPU"; });
    EXPECT_CONTAINS(msg, "model 'branchy' has no op named 'left/cnv'");
    EXPECT_CONTAINS(msg, "closest: 'left/conv'");
    EXPECT_EQ(model->find_node("left/cnv"), nullptr);
}

TEST(OvApiCore, QueryModelIsASupportedOpsMapThatIgnoresAffinities) {
    Core core;
    auto model = branchy_model();
    const SupportedOpsMap before = core.query_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    EXPECT_EQ(before.at("left/conv"), "ACCEL");
    EXPECT_EQ(before.at("centre"), "REFERENCE");  // Subtract runs on REFERENCE alone
    EXPECT_EQ(before.size(), model->get_ops().size());
    for (Node* node : model->get_ops()) node->get_rt_info()["affinity"] = "REFERENCE";
    EXPECT_EQ(core.query_model(model, "HETERO:ACCEL,NPU,REFERENCE"), before);
    // A plain device answers with itself for what it supports and leaves out the rest.
    const SupportedOpsMap accel = core.query_model(model, "ACCEL");
    EXPECT_EQ(accel.at("left/conv"), "ACCEL");
    EXPECT_EQ(accel.count("centre"), 0u);
}

TEST(OvApiCore, VariadicPropertiesAndPriorities) {
    Core core;
    auto model = branchy_model();
    const auto expected = reference_outputs(core, model);
    CompiledModel by_string = core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    CompiledModel by_args = core.compile_model(model, "HETERO", device::priorities("ACCEL", "NPU", "REFERENCE"));
    CompiledModel by_list = core.compile_model(model, "HETERO", device::priorities("ACCEL,NPU,REFERENCE"));
    CompiledModel spaced = core.compile_model(model, "HETERO:ACCEL, NPU, REFERENCE");
    for (CompiledModel* c : {&by_string, &by_args, &by_list, &spaced}) {
        EXPECT_TRUE(outputs_near(run(*c), expected));
        EXPECT_EQ(split_of(*c)["affinity"], split_of(by_string)["affinity"]);
    }

    // device::properties per device, several merged, as the seed writes it.
    CompiledModel configured = core.compile_model(model, "HETERO", device::priorities("ACCEL", "REFERENCE"),
                                                  device::properties("ACCEL", enable_profiling(true)),
                                                  device::properties("REFERENCE", hint::inference_precision(element::f32)));
    EXPECT_TRUE(outputs_near(run(configured), expected));
    const AnyMap merged = make_properties(device::properties("ACCEL", enable_profiling(true)),
                                          device::properties("REFERENCE", hint::inference_precision(element::f32)),
                                          device::properties("ACCEL", num_streams(1)));
    EXPECT_EQ(merged.at("DEVICE_PROPERTIES"),
              (json{{"ACCEL", {{"PERF_COUNT", true}, {"NUM_STREAMS", 1}}}, {"REFERENCE", {{"INFERENCE_PRECISION_HINT", "f32"}}}}));
    // ... and as a map.
    const auto as_map = device::properties(std::map<std::string, AnyMap>{{"ACCEL", {{"PERF_COUNT", true}}}});
    EXPECT_EQ(as_map.second, (json{{"ACCEL", {{"PERF_COUNT", true}}}}));
    EXPECT_EQ(hint::performance_mode(hint::PerformanceMode::THROUGHPUT).second, "THROUGHPUT");
    EXPECT_EQ(std::string(enable_profiling), "PERF_COUNT");
    EXPECT_EQ(std::string(properties::device::priorities), "MULTI_DEVICE_PRIORITIES");

    // Typed get_property.
    EXPECT_FALSE(core.get_property("REFERENCE", full_device_name).empty());
}

TEST(OvApiCore, CompiledModelPortsAndRequestsByPort) {
    Core core;
    auto model = branchy_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    EXPECT_EQ(compiled.input().get_any_name(), "x");
    EXPECT_EQ(compiled.input().get_shape(), (Shape{1, 3, 8, 8}));
    EXPECT_EQ(compiled.output("out_left").get_element_type(), element::f32);
    EXPECT_CONTAINS(message_of([&] { compiled.output(); }), "2 outputs ('out_prob', 'out_left')");
    EXPECT_CONTAINS(message_of([&] { compiled.input("nope"); }), "no input named 'nope' (inputs: 'x')");

    InferRequest request = compiled.create_infer_request();
    Tensor x(element::f32, compiled.input().get_shape());
    request.set_tensor(compiled.input(), x);
    request.infer();
    EXPECT_EQ(request.get_tensor(compiled.output(1)).get_shape(), (Shape{1, 4, 8, 8}));
}

TEST(OvApiStrictness, HeteroRefusesAnUnknownKeyWhenItIsSet) {
    Core core;
    // Known to a device that may be listed: accepted now, forwarded at compile.
    core.set_property("HETERO", {{"EXECUTION_UNITS", 1}});
    const std::string msg = error_of([&] { core.set_property("HETERO", {{"PERF_CONT", true}}); });
    EXPECT_CONTAINS(msg, "set_property(\"HETERO\"): property 'PERF_CONT' is neither a HETERO property nor one of any registered device");
    // With the list known, only its devices count: CACHE_DIR is the GPU's and CPU's, not ACCEL's.
    const std::string listed = error_of([&] {
        core.set_property("HETERO", {{"MULTI_DEVICE_PRIORITIES", "ACCEL, REFERENCE"}, {"CACHE_DIR", "/tmp"}});
    });
    EXPECT_CONTAINS(listed, "property 'CACHE_DIR' is neither a HETERO property nor one of HETERO:ACCEL,REFERENCE");
}

TEST(OvApiStrictness, DevicePropertiesForAnUnlistedOrUnknownDeviceIsAnError) {
    Core core;
    const std::string unknown = error_of([&] {
        core.set_property("HETERO", {device::properties("ACELL", enable_profiling(true))});
    });
    EXPECT_CONTAINS(unknown, "DEVICE_PROPERTIES has a section for 'ACELL', which is not a registered device");
    const std::string unlisted = error_of([&] {
        core.set_property("HETERO", {device::priorities("ACCEL", "REFERENCE"), device::properties("NPU", enable_profiling(true))});
    });
    EXPECT_CONTAINS(unlisted, "section for 'NPU', which is not in the device list ACCEL,REFERENCE");
    // Given at compile time, the same mistake is a compile error.
    const std::string at_compile = error_of([&] {
        core.compile_model(branchy_model(), "HETERO:ACCEL,REFERENCE", device::properties("NPU", enable_profiling(true)));
    });
    EXPECT_CONTAINS(at_compile, "DEVICE_PROPERTIES has a section for 'NPU', which is not in the HETERO device list ACCEL,REFERENCE");
}

TEST(OvApiStrictness, ANameWithASpaceInsideIsStillAnError) {
    Core core;
    EXPECT_CONTAINS(error_of([&] { core.compile_model(branchy_model(), "HETERO:ACC EL,REFERENCE"); }), "ACC EL");
}

}  // namespace
}  // namespace mosaic::test::hetero
