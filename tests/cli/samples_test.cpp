// The C++ samples (samples/cpp), run as a user runs them: hello_classification classifies a PNG
// and a JPEG on a HETERO device string and on one device, printing OpenVINO's top-10 table with
// the scores REFERENCE computes from the same pixels; bad images and arguments end in one clear
// error. hello_query_device lists every device with its properties.
#include "cli_runner.hpp"
#include "test_images.hpp"

#include "tools/image/image_input.hpp"

#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <regex>

namespace mosaic::cli_test {
namespace {

std::string sample(const std::string& name) { return build_dir() + "/bin/" + name; }

// The class scores REFERENCE gives for the image.
std::vector<float> reference_scores(const std::string& image) {
    Core core(build_registry());
    auto model = core.read_model(default_model());
    const Output input = model->input();
    CompiledModel compiled = core.compile_model(model, "REFERENCE");
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(image::load_images({image}, input.get_element_type(), input.get_shape()));
    request.infer();
    return request.get_output_tensor(0).to_vector<float>();
}

// The rows of the sample's table.
std::vector<std::pair<size_t, float>> printed_rows(const std::string& out) {
    std::vector<std::pair<size_t, float>> rows;
    const std::regex row(R"(^(\d+)\s+([0-9.]+)$)");
    bool in_table = false;
    for (const auto& line : lines_of(out)) {
        if (line.rfind("-------", 0) == 0) { in_table = true; continue; }
        std::smatch m;
        if (in_table && std::regex_match(line, m, row)) rows.emplace_back(std::stoul(m[1]), std::stof(m[2]));
    }
    return rows;
}

void expect_classifies(const std::string& image, const std::string& device) {
    SCOPED_TRACE(image + " on " + device);
    const CliResult r = run_program(sample("hello_classification"), {default_model(), image, device});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "[ INFO ] Loading model files: " + default_model())) << r;
    EXPECT_TRUE(contains(r.out, "Top 10 results:")) << r;
    EXPECT_TRUE(contains(r.out, "Image " + image)) << r;
    EXPECT_TRUE(contains(r.out, "classid probability\n------- -----------")) << r;
    const auto rows = printed_rows(r.out);
    std::vector<float> scores = reference_scores(image);
    ASSERT_EQ(rows.size(), 10u) << r;
    // Each printed class has the score REFERENCE gives it, and the rows are the 10 highest, in order
    // (classes with equal scores may come in either order).
    std::vector<float> sorted = scores;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    for (size_t i = 0; i < rows.size(); ++i) {
        ASSERT_LT(rows[i].first, scores.size()) << "row " << i;
        EXPECT_NEAR(rows[i].second, scores[rows[i].first], 1e-5) << "row " << i;
        EXPECT_NEAR(rows[i].second, sorted[i], 1e-5) << "row " << i;
    }
}

TEST(SampleHelloClassification, ClassifiesAPngOnHetero) {
    TempDir dir;
    write_image(dir / "picture.png", 48, 40, 3);
    expect_classifies(dir / "picture.png", "HETERO:GPU,CPU");
}

TEST(SampleHelloClassification, ClassifiesAJpegOnTheCpu) {
    TempDir dir;
    write_image(dir / "picture.jpg", 64, 64, 3);
    expect_classifies(dir / "picture.jpg", "CPU");
}

// Torch exports a dynamic batch; the sample runs such a model at batch 1, with the scores of the
// static model.
TEST(SampleHelloClassification, ADynamicBatchRunsAtBatchOne) {
    TempDir dir;
    write_image(dir / "picture.png", 32, 32, 3);
    Core core(build_registry());
    auto model = core.read_model(default_model());
    model->reshape({{model->input().get_any_name(), {-1, 3, 32, 32}}});
    serialize(*model, dir / "dynamic.xml", dir / "dynamic.bin");
    const CliResult r = run_program(sample("hello_classification"), {dir / "dynamic.xml", dir / "picture.png", "CPU"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const auto rows = printed_rows(r.out);
    const std::vector<float> scores = reference_scores(dir / "picture.png");
    ASSERT_EQ(rows.size(), 10u) << r;
    for (const auto& [class_id, score] : rows) EXPECT_NEAR(score, scores.at(class_id), 1e-5) << class_id;
    // A dynamic spatial dimension is not guessed: the error says what to do.
    model->reshape({{model->input().get_any_name(), {1, 3, -1, 32}}});
    serialize(*model, dir / "spatial.xml", dir / "spatial.bin");
    const CliResult spatial =
        run_program(sample("hello_classification"), {dir / "spatial.xml", dir / "picture.png", "CPU"});
    EXPECT_EQ(spatial.exit_code, 1) << spatial;
    EXPECT_TRUE(contains(spatial.err, "dynamic shape [1,3,?,32]")) << spatial;
    EXPECT_TRUE(contains(spatial.err, "reshape")) << spatial;
}

TEST(SampleHelloClassification, ATextFileIsNotAnImage) {
    TempDir dir;
    write_text(dir / "notes.png", "these are not pixels\n");
    const CliResult r = run_program(sample("hello_classification"), {default_model(), dir / "notes.png", "CPU"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_EQ(r.signal, 0) << r;
    EXPECT_TRUE(contains(r.err, dir / "notes.png")) << r;
    EXPECT_TRUE(contains(r.err, "image")) << r;
}

TEST(SampleHelloClassification, AMissingImageAndABadDeviceAreClearErrors) {
    TempDir dir;
    CliResult r = run_program(sample("hello_classification"), {default_model(), dir / "missing.jpg", "CPU"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, dir / "missing.jpg")) << r;
    write_image(dir / "picture.png", 8, 8, 3);
    r = run_program(sample("hello_classification"), {default_model(), dir / "picture.png", "HETERO:TPU,CPU"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "device 'TPU' is not registered")) << r;
}

TEST(SampleHelloClassification, PrintsItsUsage) {
    const CliResult r = run_program(sample("hello_classification"), {default_model()});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.out, "<path_to_model> <path_to_image> <device_name>")) << r;
}

TEST(SampleHelloQueryDevice, ListsEveryDeviceWithItsProperties) {
    const CliResult r = run_program(sample("hello_query_device"), {});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "[ INFO ] Available devices: ")) << r;
    for (const std::string device : {"REFERENCE", "ACCEL", "CPU", "HETERO"})
        EXPECT_TRUE(contains(r.out, "[ INFO ] " + device + "\n")) << device << "\n" << r;
    EXPECT_TRUE(contains(r.out, "\tSUPPORTED_PROPERTIES: ")) << r;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("Immutable: FULL_DEVICE_NAME : Mosaic reference device"))) << r;
    EXPECT_TRUE(contains(r.out, "Mutable: PERF_COUNT : NO")) << r;
    EXPECT_TRUE(contains(r.out, "Mutable: MULTI_DEVICE_PRIORITIES : ")) << r;
}

}  // namespace
}  // namespace mosaic::cli_test
