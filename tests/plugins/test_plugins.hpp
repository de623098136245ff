// Helpers for tests that load plugins: where the build puts the test plugins (this folder, built
// into <build>/test_plugins) and the reference plugin, registries written to a temporary folder,
// and a tiny model to run on whatever device loads.
#pragma once

#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mosaic::test {

namespace fs = std::filesystem;

// The build tree: $MOSAIC_BUILD_DIR (set by ctest) or the one this test was compiled in.
inline fs::path build_dir() {
    const char* env = std::getenv("MOSAIC_BUILD_DIR");
    if (env && *env) return env;
#ifdef MOSAIC_BUILD_DIR
    return MOSAIC_BUILD_DIR;
#else
    throw std::runtime_error("set MOSAIC_BUILD_DIR to the build directory");
#endif
}

// The registry of the build: $MOSAIC_PLUGINS (set by ctest) or <build>/lib/mosaic/plugins.json.
inline fs::path build_registry() {
    const char* env = std::getenv("MOSAIC_PLUGINS");
    if (env && *env) return env;
    return build_dir() / "lib" / "mosaic" / "plugins.json";
}

// The source tree's config/ folder (schemas and the registry as committed).
inline fs::path source_config_dir() {
#ifdef MOSAIC_TEST_DATA
    return (fs::path(MOSAIC_TEST_DATA) / ".." / ".." / "config").lexically_normal();
#else
    throw std::runtime_error("MOSAIC_TEST_DATA is not defined");
#endif
}

inline fs::path reference_plugin() { return build_dir() / "lib" / "mosaic" / "plugins" / "libmosaic_reference_plugin.so"; }

// The plugins of tests/plugins.
inline fs::path test_plugin_dir() { return build_dir() / "test_plugins"; }
inline fs::path abi10_plugin() { return test_plugin_dir() / "libmosaic_test_abi10_plugin.so"; }
inline fs::path abi_major2_plugin() { return test_plugin_dir() / "libmosaic_test_abi_major2_plugin.so"; }
inline fs::path no_entry_plugin() { return test_plugin_dir() / "libmosaic_test_no_entry_plugin.so"; }
inline fs::path refusing_plugin() { return test_plugin_dir() / "libmosaic_test_refusing_plugin.so"; }
inline fs::path forward_plugin() { return test_plugin_dir() / "libmosaic_test_forward_plugin.so"; }
// A faulty plugin of faulty_plugin.cpp by its fault's name ("props_string", "no_callback", ...).
inline fs::path faulty_plugin(const std::string& fault) {
    return test_plugin_dir() / ("libmosaic_test_faulty_" + fault + ".so");
}
inline fs::path not_a_library() { return test_plugin_dir() / "libbroken.so"; }
// The message refusing_plugin.c returns from its entry point.
inline const char* refusal_message() { return "simulated refusal by mosaic_test_refusing_plugin"; }

// A registry file in a fresh temporary folder, removed with the object.
//   TempRegistry r;
//   r.add("REFERENCE", reference_plugin());       // stored relative to the registry file
//   r.add_raw({{"library", "x.so"}});             // any JSON entry, as is
//   r.write();                                     // {"version": 1, "plugins": [...]}
class TempRegistry {
public:
    TempRegistry() {
        static std::atomic<int> counter{0};
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = "mosaic-registry-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
        if (info) name += std::string("-") + info->name();
        for (char& c : name)
            if (c == '/') c = '_';
        dir_ = fs::weakly_canonical(fs::temp_directory_path()) / name;
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    ~TempRegistry() {
        std::error_code ec;
        if (!std::getenv("MOSAIC_KEEP_TEST_REGISTRIES")) fs::remove_all(dir_, ec);
    }
    TempRegistry(const TempRegistry&) = delete;
    TempRegistry& operator=(const TempRegistry&) = delete;

    const fs::path& dir() const { return dir_; }
    fs::path file() const { return dir_ / "plugins.json"; }
    std::string path() const { return file().string(); }

    // An entry whose library path is written relative to the registry file (as installed registries are).
    TempRegistry& add(const std::string& device, const fs::path& library,
                      nlohmann::json properties = nlohmann::json()) {
        nlohmann::json e = {{"device", device}, {"library", fs::relative(library, dir_).string()}};
        if (!properties.is_null()) e["properties"] = std::move(properties);
        return add_raw(std::move(e));
    }
    // Copies `library` into <dir>/plugins/ and adds an entry "plugins/<file name>"; returns the copy.
    fs::path add_copy(const std::string& device, const fs::path& library) {
        fs::create_directories(dir_ / "plugins");
        const fs::path copy = dir_ / "plugins" / library.filename();
        if (!fs::exists(copy)) fs::copy_file(library, copy);
        add_raw({{"device", device}, {"library", "plugins/" + library.filename().string()}});
        return copy;
    }
    TempRegistry& add_raw(nlohmann::json entry) {
        entries_.push_back(std::move(entry));
        return *this;
    }

    void write() const { write_text(nlohmann::json{{"version", 1}, {"plugins", entries_}}.dump(2)); }
    void write_text(const std::string& text) const { write_file(file(), text); }
    // <dir>/devices/<device>.json
    void write_device_file(const std::string& device, const nlohmann::json& properties) const {
        write_device_text(device, properties.dump(2));
    }
    // The same, as text that need not be JSON nlohmann can hold ("1e999").
    void write_device_text(const std::string& device, const std::string& text) const {
        fs::create_directories(dir_ / "devices");
        write_file(dir_ / "devices" / (device + ".json"), text);
    }

private:
    static void write_file(const fs::path& path, const std::string& text) {
        std::ofstream out(path);
        out << text;
        if (!out) throw std::runtime_error("cannot write " + path.string());
    }

    fs::path dir_;
    nlohmann::json entries_ = nlohmann::json::array();
};

// x -> Relu -> Result, f32 of `shape`.
inline std::shared_ptr<Model> relu_model(const Shape& shape = {2, 3}) {
    ModelBuilder b("relu");
    auto x = b.parameter("x", ElementType::f32, shape);
    b.result(b.op("Relu", {x}), "y");
    return b.build();
}

// x[2,3] -> Relu -> Add(const [3]: 1, 2, 3, broadcast) -> Result
inline std::shared_ptr<Model> relu_add_model() {
    ModelBuilder b("relu_add");
    auto x = b.parameter("x", ElementType::f32, {2, 3});
    auto c = b.constant<float>({3}, {1.f, 2.f, 3.f}, "bias");
    b.result(b.op("Add", {b.op("Relu", {x}, {}, "relu"), c}, {}, "add"), "y");
    return b.build();
}

inline std::vector<float> sample_input() { return {-2.f, -0.5f, 0.f, 1.5f, 3.f, -4.f}; }
inline std::vector<float> relu_of_sample() { return {0.f, 0.f, 0.f, 1.5f, 3.f, 0.f}; }
inline std::vector<float> relu_add_of_sample() { return {1.f, 2.f, 3.f, 2.5f, 5.f, 3.f}; }

// Compiles `model` on `device`, runs it once on `input` and returns output 0.
inline std::vector<float> run_once(Core& core, const std::shared_ptr<Model>& model, const std::string& device,
                                   const std::vector<float>& input, const AnyMap& properties = {}) {
    CompiledModel compiled = core.compile_model(model, device, properties);
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(Tensor::from_vector(compiled.inputs().at(0).shape, ElementType::f32, input));
    request.infer();
    return request.get_output_tensor().to_vector<float>();
}

// The message of the std::runtime_error `fn` throws; fails the test (and returns "") otherwise.
inline std::string error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const std::runtime_error& e) {
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected std::runtime_error, got another exception: " << e.what();
        return "";
    }
    ADD_FAILURE() << "expected std::runtime_error, nothing was thrown";
    return "";
}

inline ::testing::AssertionResult contains(const char* text_expr, const char* part_expr, const std::string& text,
                                           const std::string& part) {
    if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << text_expr << " does not contain " << part_expr << " (\"" << part
                                         << "\")\n  " << text_expr << ": \"" << text << "\"";
}

// The problems Core reports for `device`.
inline std::vector<RegistryProblem> problems_of(const Core& core, const std::string& device) {
    std::vector<RegistryProblem> out;
    for (const auto& p : core.problems())
        if (p.device == device) out.push_back(p);
    return out;
}

inline bool has_device(Core& core, const std::string& device) {
    for (const auto& d : core.get_available_devices())
        if (d == device) return true;
    return false;
}

}  // namespace mosaic::test

#define EXPECT_CONTAINS(text, part) EXPECT_PRED_FORMAT2(::mosaic::test::contains, text, part)
#define ASSERT_CONTAINS(text, part) ASSERT_PRED_FORMAT2(::mosaic::test::contains, text, part)
