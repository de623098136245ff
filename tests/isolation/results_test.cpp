// A healthy plugin isolated in its own process gives the same bits as in process, on the bundled
// default model, synchronously, asynchronously and from several threads at once; its properties
// and profiling cross too.
#include "isolation/isolation_test_util.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <thread>

namespace mosaic::test::isolation {
namespace {

std::vector<float> input_for(size_t count, int seed) {
    std::vector<float> v(count);
    uint32_t s = 2654435761u * static_cast<uint32_t>(seed + 1);
    for (float& x : v) {
        s = s * 1664525u + 1013904223u;
        x = static_cast<float>(s >> 8) / 16777216.0f * 2.0f - 1.0f;
    }
    return v;
}

class IsolatedResults : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        use_build_plugin_host();
        const std::string device = GetParam();
        const fs::path library = device == "CPU" ? cpu_plugin() : reference_plugin();
        if (!fs::exists(library)) GTEST_SKIP() << device << " is not built here (" << library << ")";
        model_path_ = build_dir() / "models" / "mosaic_cnn.xml";
        if (!fs::exists(model_path_)) GTEST_SKIP() << "no bundled default model at " << model_path_;
        registry_.add(device, library);
        registry_.add_raw(isolated_entry(registry_, device + "_ISOLATED", library));
        registry_.write();
    }

    // Output 0 of `compiled` for the input made from `seed`, through `request`.
    static std::vector<unsigned char> run(CompiledModel& compiled, InferRequest& request, int seed, bool async) {
        const auto& port = compiled.inputs().at(0);
        const std::vector<float> input = input_for(static_cast<size_t>(shape_size(port.shape)), seed);
        request.set_input_tensor(Tensor::from_vector(port.shape, ElementType::f32, input));
        if (async) {
            request.start_async();
            request.wait();
        } else {
            request.infer();
        }
        const Tensor out = request.get_output_tensor();
        const auto* bytes = static_cast<const unsigned char*>(out.data());
        return std::vector<unsigned char>(bytes, bytes + out.get_byte_size());
    }

    TempRegistry registry_;
    fs::path model_path_;
};

TEST_P(IsolatedResults, BitIdenticalToInProcessSyncAsyncAndThreaded) {
    Core core(registry_.path());
    auto model = core.read_model(model_path_.string());
    CompiledModel local = core.compile_model(model, GetParam());
    CompiledModel isolated = core.compile_model(model, GetParam() + "_ISOLATED");
    constexpr int kThreads = 4, kPerThread = 3;
    std::vector<std::vector<unsigned char>> expected;
    InferRequest local_request = local.create_infer_request();
    for (int seed = 0; seed < kThreads * kPerThread; ++seed) expected.push_back(run(local, local_request, seed, false));

    InferRequest request = isolated.create_infer_request();
    EXPECT_EQ(run(isolated, request, 0, false), expected[0]);
    EXPECT_EQ(run(isolated, request, 1, true), expected[1]);

    std::vector<std::thread> threads;
    std::vector<int> mismatches(kThreads, 0);
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            InferRequest own = isolated.create_infer_request();
            for (int i = 0; i < kPerThread; ++i) {
                const int seed = t * kPerThread + i;
                if (run(isolated, own, seed, i % 2 == 1) != expected[static_cast<size_t>(seed)]) ++mismatches[t];
            }
        });
    for (auto& t : threads) t.join();
    EXPECT_EQ(mismatches, std::vector<int>(kThreads, 0));
}

TEST_P(IsolatedResults, PropertiesAndProfilingCross) {
    Core core(registry_.path());
    EXPECT_EQ(core.get_property(GetParam() + "_ISOLATED", "FULL_DEVICE_NAME"),
              core.get_property(GetParam(), "FULL_DEVICE_NAME"));
    CompiledModel compiled = core.compile_model(core.read_model(model_path_.string()), GetParam() + "_ISOLATED",
                                                {{"PERF_COUNT", true}});
    InferRequest request = compiled.create_infer_request();
    run(compiled, request, 0, false);
    EXPECT_FALSE(request.get_profiling_info().empty());
}

// Export and import cross too, the blob in shared memory: a model exported from the isolated
// device imports there and gives the in-process bits; a plugin that cannot export says so as it
// does in process.
TEST_P(IsolatedResults, ExportAndImportCross) {
    Core core(registry_.path());
    auto model = core.read_model(model_path_.string());
    CompiledModel local = core.compile_model(model, GetParam());
    InferRequest local_request = local.create_infer_request();
    const std::vector<unsigned char> expected = run(local, local_request, 5, false);

    const std::string isolated = GetParam() + "_ISOLATED";
    CompiledModel compiled = core.compile_model(model, isolated);
    std::stringstream blob;
    std::string local_error, isolated_error;
    try {
        local.export_model(blob);
    } catch (const std::runtime_error& e) {
        local_error = e.what();
    }
    blob.str("");
    try {
        compiled.export_model(blob);
    } catch (const std::runtime_error& e) {
        isolated_error = e.what();
    }
    if (!local_error.empty()) {
        // The same refusal, from the plugin across the process boundary.
        const std::string why = local_error.substr(local_error.rfind(": ") + 2);
        EXPECT_NE(isolated_error.find(why), std::string::npos) << isolated_error << "\nin process: " << local_error;
        return;
    }
    ASSERT_EQ(isolated_error, "");
    EXPECT_GT(blob.str().size(), 1000u);  // the weights travel in the blob

    CompiledModel imported = core.import_model(blob, isolated);
    InferRequest request = imported.create_infer_request();
    EXPECT_EQ(run(imported, request, 5, false), expected);
}

INSTANTIATE_TEST_SUITE_P(HealthyPlugins, IsolatedResults, ::testing::Values("REFERENCE", "CPU"));

}  // namespace
}  // namespace mosaic::test::isolation
