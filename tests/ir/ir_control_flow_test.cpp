// OpenVINO IR control flow (ir_control_flow.hpp): If-8, Loop-5 and TensorIterator-1 as OpenVINO
// writes them (tools/models/make_ir_control_flow_models.py, generated on first use with OpenVINO's
// Python package), read and run on every device, equal to OpenVINO's outputs: an If at both
// conditions (the branches give different shapes), torch.onnx's guarded squeeze (an If whose
// branches differ in rank, decided when the model is read by a static dimension of a shape with a
// dynamic one), a Loop at two trip counts given as an input,
// a TensorIterator over two sequence lengths; the same after Mosaic writes them back; and bad port
// maps named.
#include "onnx/exporter_models.hpp"

#include <mosaic/mosaic.hpp>
#include <mosaic/serialize.hpp>

#include <gtest/gtest.h>

#include "tools/mosaic/npy.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

namespace mosaic::test {
namespace {

namespace fs = std::filesystem;

// Generated on first use (never committed), one generation at a time; empty without OpenVINO.
fs::path model_folder() {
    const fs::path root = mosaic::test::generated_models_root() / "ir_models_control_flow";
    const fs::path folder = root / "ir_control_flow";
    if (fs::exists(folder / "done")) return folder;
    fs::create_directories(root);
    const char* python = std::getenv("MOSAIC_PYTHON");
    const std::string command = "flock " + (root / ".lock").string() + " " + (python && *python ? python : "python3") +
                                " " + MOSAIC_SOURCE_DIR + "/tools/models/make_ir_control_flow_models.py " +
                                root.string() + " >" + (root / "log.txt").string() + " 2>&1";
    if (std::system(command.c_str()) != 0 || !fs::exists(folder / "done")) return {};
    return folder;
}

void expect_equal(const Tensor& got, const Tensor& want, const std::string& what) {
    ASSERT_EQ(to_string(got.get_shape()), to_string(want.get_shape())) << what;
    float worst = 0;
    for (size_t i = 0; i < want.get_size(); ++i)
        worst = std::max(worst, std::fabs(got.data<float>()[i] - want.data<float>()[i]));
    EXPECT_LT(worst, 1e-5f) << what;
}

// Both cases of `model`: its inputs in, OpenVINO's outputs out, on one request.
void expect_cases(CompiledModel& compiled, const fs::path& folder, const std::string& model, const std::string& what) {
    InferRequest r = compiled.create_infer_request();
    for (int k = 0; k < 2; ++k) {
        const fs::path data = folder / (model + "_case_" + std::to_string(k));
        for (const PortDesc& in : compiled.inputs()) r.set_tensor(in.name, npy::read((data / (in.name + ".npy")).string()));
        r.infer();
        for (const PortDesc& out : compiled.outputs())
            expect_equal(r.get_tensor(out.name), npy::read((data / (out.name + ".npy")).string()),
                         what + ", case " + std::to_string(k) + ", output " + out.name);
    }
}

class IrControlFlow : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
protected:
    void SetUp() override {
        folder_ = model_folder();
        if (folder_.empty()) GTEST_SKIP() << "OpenVINO's Python package is needed to write the models";
    }
    fs::path folder_;
};

TEST_P(IrControlFlow, EqualsOpenVinoInBothCases) {
    const auto& [model, device] = GetParam();
    Core core;
    CompiledModel compiled = core.compile_model(core.read_model((folder_ / (model + ".xml")).string()), device);
    expect_cases(compiled, folder_, model, model + " on " + device);
}

// Written back by Mosaic (the TensorIterator as a Loop) and read again: the same answers.
// The round trip is the reader's and writer's business: one device shows it.
class IrControlFlowWritten : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        folder_ = model_folder();
        if (folder_.empty()) GTEST_SKIP() << "OpenVINO's Python package is needed to write the models";
    }
    fs::path folder_;
};

TEST_P(IrControlFlowWritten, ReadAgainStillEqualsOpenVino) {
    const std::string& model = GetParam();
    const std::string device = "CPU";
    Core core;
    const fs::path copy = mosaic::test::generated_models_root() / "ir_models_control_flow" / ("written_" + model + ".xml");
    std::shared_ptr<Model> read = core.read_model((folder_ / (model + ".xml")).string());
    serialize(*read, copy.string());
    std::shared_ptr<Model> again = core.read_model(copy.string());
    // What the reader adds around a node (a trip count, moved axes) is written as ops and read as them.
    EXPECT_EQ(again->get_ops_count(), read->get_ops_count());
    CompiledModel compiled = core.compile_model(again, device);
    expect_cases(compiled, folder_, model, "written " + model);
}

std::string test_name(const ::testing::TestParamInfo<std::tuple<std::string, std::string>>& info) {
    std::string name = std::get<0>(info.param) + "_" + std::get<1>(info.param);
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Models, IrControlFlow,
                         ::testing::Combine(::testing::Values("if", "if_squeeze", "loop", "tensor_iterator"),
                                            ::testing::Values("REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU")),
                         test_name);
INSTANTIATE_TEST_SUITE_P(Models, IrControlFlowWritten, ::testing::Values("if", "if_squeeze", "loop", "tensor_iterator"));

// A port map that names a body layer that is not there is an error naming the layer.
TEST(IrControlFlowErrors, APortMapNamingAMissingBodyLayerIsNamed) {
    const fs::path folder = model_folder();
    if (folder.empty()) GTEST_SKIP() << "OpenVINO's Python package is needed to write the models";
    std::ifstream in(folder / "loop.xml");
    std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // The carried value's port map entry points at body layer 99.
    const std::regex entry(R"(<input external_port_id="2" internal_layer_id="\d+")");
    ASSERT_TRUE(std::regex_search(xml, entry));
    xml = std::regex_replace(xml, entry, R"(<input external_port_id="2" internal_layer_id="99")",
                             std::regex_constants::format_first_only);
    const fs::path broken = mosaic::test::generated_models_root() / "ir_models_control_flow" / "broken_loop.xml";
    std::ofstream(broken) << xml;
    fs::copy_file(folder / "loop.bin", broken.parent_path() / "broken_loop.bin", fs::copy_options::overwrite_existing);
    try {
        Core().read_model(broken.string());
        FAIL() << "a port map naming a missing layer was read";
    } catch (const ModelError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("broken_loop.xml"), std::string::npos) << what;
        EXPECT_NE(what.find("type Loop"), std::string::npos) << what;
        EXPECT_NE(what.find("body layer 99"), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace mosaic::test
