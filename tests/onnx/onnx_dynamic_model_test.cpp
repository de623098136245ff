// A torch export with dynamic batch and spatial axes (SqueezeNet 1.1, tools/models/make_onnx_models.py
// squeezenet1_1_dynamic) read as it comes: one compiled model runs at three input shapes one after
// the other on CPU and HETERO, each equal to REFERENCE; `mosaic run` takes the shape from -i alone.
#include "cli/cli_runner.hpp"
#include "onnx/exporter_models.hpp"

#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

namespace mosaic::test {
namespace {

namespace fs = std::filesystem;
using cli_test::run_mosaic;
using cli_test::TempDir;

const char* const kModelName = "squeezenet1_1_dynamic";

// Generated with torch on first use (never committed), in a folder of its own so that the
// architecture tests, which generate the other models, never write the same files; one generation
// at a time (the CPU and HETERO cases start together).
std::string model_path() {
    const fs::path folder = mosaic::test::generated_model("onnx_models_dynamic", kModelName, "make_onnx_models.py",
                                                          std::string("--only ") + kModelName, "/usr/bin/python3");
    return folder.empty() ? "" : (folder / "model.onnx").string();
}

Tensor random_image(const Shape& shape, unsigned seed) {
    Tensor t(ElementType::f32, shape);
    std::mt19937 gen(seed);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    for (size_t i = 0; i < t.get_size(); ++i) t.data<float>()[i] = dist(gen);
    return t;
}

// The largest difference relative to the reference's largest magnitude.
float relative_error(const Tensor& got, const Tensor& want) {
    float worst = 0, scale = 1e-6f;
    for (size_t i = 0; i < want.get_size(); ++i) scale = std::max(scale, std::fabs(want.data<float>()[i]));
    for (size_t i = 0; i < want.get_size(); ++i)
        worst = std::max(worst, std::fabs(got.data<float>()[i] - want.data<float>()[i]));
    return worst / scale;
}

const std::vector<Shape> kShapes = {{1, 3, 64, 64}, {2, 3, 96, 80}, {1, 3, 112, 128}};

class OnnxDynamicModel : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxDynamicModel, OneCompiledModelRunsAtThreeShapesEqualToReference) {
    const std::string path = model_path();
    if (path.empty()) GTEST_SKIP() << "torch is needed to export " << kModelName << " (/usr/bin/python3 with python3-torch)";
    Core core;
    auto model = core.read_model(path);
    ASSERT_EQ(model->input().get_partial_shape(), (Shape{-1, 3, -1, -1}));
    std::string device = GetParam();
    if (device == "HETERO") {
        const auto devices = core.get_available_devices();
        const bool gpu = std::find(devices.begin(), devices.end(), "GPU") != devices.end();
        device = gpu ? "HETERO:GPU,CPU" : "HETERO:CPU,REFERENCE";
    }
    CompiledModel compiled = core.compile_model(model, device);
    CompiledModel reference = core.compile_model(model, "REFERENCE");
    InferRequest request = compiled.create_infer_request(), oracle = reference.create_infer_request();
    for (size_t i = 0; i < kShapes.size(); ++i) {
        const Tensor image = random_image(kShapes[i], static_cast<unsigned>(i + 1));
        request.set_input_tensor(0, image);
        request.infer();
        oracle.set_input_tensor(0, image);
        oracle.infer();
        const Tensor got = request.get_output_tensor(0), want = oracle.get_output_tensor(0);
        ASSERT_EQ(got.get_shape(), (Shape{kShapes[i][0], 1000})) << device;
        EXPECT_LT(relative_error(got, want), 1e-4f) << device << " at " << to_string(kShapes[i]);
    }
}

INSTANTIATE_TEST_SUITE_P(Devices, OnnxDynamicModel, ::testing::Values("CPU", "HETERO"));

void write_npy(const std::string& path, const Tensor& t) {
    std::string dims;
    for (int64_t d : t.get_shape()) dims += std::to_string(d) + ",";
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
    header.append(64 - (10 + header.size() + 1) % 64, ' ');
    header += '\n';
    std::ofstream out(path, std::ios::binary);
    const uint16_t length = static_cast<uint16_t>(header.size());
    out << "\x93NUMPY" << '\x01' << '\x00';
    out.write(reinterpret_cast<const char*>(&length), 2);
    out << header;
    out.write(static_cast<const char*>(t.data()), static_cast<std::streamsize>(t.get_byte_size()));
}

TEST(OnnxDynamicModel, MosaicRunTakesTheShapeFromTheInputFile) {
    const std::string path = model_path();
    if (path.empty()) GTEST_SKIP() << "torch is needed to export " << kModelName;
    TempDir dir;
    for (const Shape& shape : {Shape{2, 3, 96, 80}, Shape{1, 3, 64, 64}}) {
        const std::string input = dir / "x.npy";
        write_npy(input, random_image(shape, 7));
        const auto r = run_mosaic({"run", "-m", path, "-d", "CPU", "-i", input});
        ASSERT_EQ(r.exit_code, 0) << r;
        EXPECT_TRUE(cli_test::contains(r.out, "Input 'input': f32 " + to_string(shape))) << r;
        EXPECT_TRUE(cli_test::contains(r.out, "[" + std::to_string(shape[0]) + ",1000]")) << r;
        EXPECT_FALSE(cli_test::contains(r.err, "set to 1")) << r;
    }
    // An image too small for the network, from a default: the error says where the shape came from.
    const auto defaulted = run_mosaic({"run", "-m", path, "-d", "CPU"});
    EXPECT_EQ(defaulted.exit_code, 1) << defaulted;
    EXPECT_TRUE(cli_test::contains(defaulted.err, "were set to 1 for want of a shape: give one with --shape")) << defaulted;
}

// `mosaic convert` keeps what the model leaves dynamic, as ovc does (it used to set it to 1, and
// SqueezeNet's 1x1 image then failed its first convolution); --shape fixes it.
TEST(OnnxDynamicModel, ConvertKeepsTheDynamicDimensionsThatShapeLeaves) {
    const std::string path = model_path();
    if (path.empty()) GTEST_SKIP() << "torch is needed to export " << kModelName;
    TempDir dir;
    const auto kept = run_mosaic({"convert", "-m", path, "-o", dir / "kept.xml"});
    ASSERT_EQ(kept.exit_code, 0) << kept;
    EXPECT_FALSE(cli_test::contains(kept.err, "set to 1")) << kept;
    const auto fixed = run_mosaic({"convert", "-m", path, "-o", dir / "fixed.xml", "--shape", "[?,3,64,64]"});
    ASSERT_EQ(fixed.exit_code, 0) << fixed;
    Core core;
    EXPECT_EQ(core.read_model(dir / "kept.xml")->input().get_partial_shape(), (Shape{-1, 3, -1, -1}));
    EXPECT_EQ(core.read_model(dir / "fixed.xml")->input().get_partial_shape(), (Shape{-1, 3, 64, 64}));
    // The converted model runs at a shape of its own choosing, as the ONNX one does.
    write_npy(dir / "x.npy", random_image({2, 3, 96, 80}, 3));
    const auto run = run_mosaic({"run", "-m", dir / "kept.xml", "-d", "CPU", "-i", dir / "x.npy"});
    ASSERT_EQ(run.exit_code, 0) << run;
    EXPECT_TRUE(cli_test::contains(run.out, "[2,1000]")) << run;
}

}  // namespace
}  // namespace mosaic::test
