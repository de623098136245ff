// Core::register_plugin and unload_plugin: plugins added and removed at run time, bad libraries
// reported at once with the same messages as registry entries.
#include "plugins/test_plugins.hpp"

#include <mosaic/plugin_abi.h>

namespace mosaic::test {
namespace {

class RegisterPlugin : public ::testing::Test {
protected:
    Core core{build_registry().string()};
};

TEST_F(RegisterPlugin, AddsAWorkingDevice) {
    core.register_plugin(reference_plugin().string(), "MYREF");
    EXPECT_TRUE(has_device(core, "MYREF"));
    EXPECT_TRUE(has_device(core, "REFERENCE"));
    EXPECT_EQ(run_once(core, relu_add_model(), "MYREF", sample_input()), relu_add_of_sample());
    EXPECT_TRUE(problems_of(core, "MYREF").empty());
}

TEST_F(RegisterPlugin, PassesInitialProperties) {
    core.register_plugin(reference_plugin().string(), "MYREF", {{"PERFORMANCE_HINT", "THROUGHPUT"}});
    EXPECT_EQ(core.get_property("MYREF", "PERFORMANCE_HINT"), "THROUGHPUT");
    EXPECT_EQ(core.get_property("REFERENCE", "PERFORMANCE_HINT"), "LATENCY");  // untouched
}

TEST_F(RegisterPlugin, BadInitialPropertyThrowsAndRegistersNothing) {
    const std::string message =
        error_of([&] { core.register_plugin(reference_plugin().string(), "MYREF", {{"NO_SUCH_PROPERTY", 1}}); });
    EXPECT_CONTAINS(message, "NO_SUCH_PROPERTY");
    EXPECT_FALSE(has_device(core, "MYREF"));
}

TEST_F(RegisterPlugin, BadLibrariesThrowAtOnce) {
    const fs::path missing = test_plugin_dir() / "libmosaic_no_such_plugin.so";
    const std::string host = std::to_string(MOSAIC_ABI_VERSION_MAJOR) + "." + std::to_string(MOSAIC_ABI_VERSION_MINOR);
    const struct {
        fs::path library;
        std::vector<std::string> expected;
    } cases[] = {
        {missing, {missing.string(), "does not exist"}},
        {not_a_library(), {not_a_library().string(), "cannot be loaded"}},
        {no_entry_plugin(), {no_entry_plugin().string(), "mosaic_plugin_entry"}},
        {abi_major2_plugin(), {abi_major2_plugin().string(), "ABI", "major", "2.0", host}},
        {refusing_plugin(), {refusing_plugin().string(), refusal_message()}},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.library.string());
        const std::string message = error_of([&] { core.register_plugin(c.library.string(), "BAD"); });
        for (const auto& part : c.expected) EXPECT_CONTAINS(message, part);
        EXPECT_FALSE(has_device(core, "BAD"));
        EXPECT_CONTAINS(error_of([&] { core.compile_model(relu_model(), "BAD"); }), "not registered");
    }
    EXPECT_EQ(run_once(core, relu_model(), "REFERENCE", sample_input()), relu_of_sample());
}

TEST_F(RegisterPlugin, ANameAlreadyInUseIsRefused) {
    const std::string message = error_of([&] { core.register_plugin(reference_plugin().string(), "REFERENCE"); });
    EXPECT_CONTAINS(message, "REFERENCE");
    EXPECT_EQ(run_once(core, relu_model(), "REFERENCE", sample_input()), relu_of_sample());
}

TEST_F(RegisterPlugin, ReservedCharactersInTheNameAreRefused) {
    // '.' separates device ids (GPU.1), ':' and ',' device lists (HETERO:GPU,CPU).
    for (const char* name : {"MY.REF", "MY:REF", "MY,REF", ""}) {
        SCOPED_TRACE(name);
        error_of([&] { core.register_plugin(reference_plugin().string(), name); });
    }
}

TEST_F(RegisterPlugin, UnloadForgetsTheDevice) {
    core.register_plugin(reference_plugin().string(), "MYREF");
    core.unload_plugin("MYREF");
    EXPECT_FALSE(has_device(core, "MYREF"));
    const std::string message = error_of([&] { core.compile_model(relu_model(), "MYREF"); });
    EXPECT_CONTAINS(message, "MYREF");
    EXPECT_CONTAINS(message, "not registered");
    // The name is free again.
    core.register_plugin(reference_plugin().string(), "MYREF");
    EXPECT_EQ(run_once(core, relu_model(), "MYREF", sample_input()), relu_of_sample());
}

TEST_F(RegisterPlugin, UnloadingARegistryDeviceWorksToo) {
    core.unload_plugin("ACCEL");
    EXPECT_FALSE(has_device(core, "ACCEL"));
    EXPECT_TRUE(has_device(core, "REFERENCE"));
    EXPECT_CONTAINS(error_of([&] { core.unload_plugin("ACCEL"); }), "ACCEL");
}

TEST_F(RegisterPlugin, CompiledModelOutlivesUnload) {
    // The library stays loaded while a compiled model uses it.
    core.register_plugin(abi10_plugin().string(), "OLD10");
    CompiledModel compiled = core.compile_model(relu_add_model(), "OLD10");
    core.unload_plugin("OLD10");
    EXPECT_FALSE(has_device(core, "OLD10"));
    for (int i = 0; i < 2; ++i) {
        InferRequest request = compiled.create_infer_request();
        request.set_input_tensor(Tensor::from_vector({2, 3}, ElementType::f32, sample_input()));
        request.infer();
        EXPECT_EQ(request.get_output_tensor().to_vector<float>(), relu_add_of_sample());
    }
}

TEST_F(RegisterPlugin, OneLibraryManyCoresAndNames) {
    // The same library behind several names and several Cores: separate devices, separate properties.
    Core other(build_registry().string());
    core.register_plugin(reference_plugin().string(), "R1", {{"PERF_COUNT", true}});
    other.register_plugin(reference_plugin().string(), "R1");
    core.register_plugin(reference_plugin().string(), "R2");
    EXPECT_EQ(core.get_property("R1", "PERF_COUNT"), true);
    EXPECT_EQ(other.get_property("R1", "PERF_COUNT"), false);
    EXPECT_EQ(core.get_property("R2", "PERF_COUNT"), false);
    core.unload_plugin("R1");
    EXPECT_EQ(run_once(other, relu_model(), "R1", sample_input()), relu_of_sample());
    EXPECT_EQ(run_once(core, relu_model(), "R2", sample_input()), relu_of_sample());
}

}  // namespace
}  // namespace mosaic::test
