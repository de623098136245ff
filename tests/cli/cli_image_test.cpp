// Images as model inputs: the mosaic_image library (tools/image) on its own, and `mosaic run -i` /
// `mosaic benchmark -i` with PNG and JPEG files written here with stb_image_write. An image must
// give the same outputs as the .npy file holding what the library documents (BGR, 0..255, NCHW or
// NHWC from the input shape), and every bad file must end in one clear error naming it.
#include "cli_runner.hpp"
#include "test_images.hpp"

#include "tools/image/image_input.hpp"
#include "tools/mosaic/npy.hpp"

#include <stb_image.h>

#include <gtest/gtest.h>

#include <functional>
#include <regex>

namespace mosaic::cli_test {
namespace {

const std::string kHetero = "HETERO:ACCEL,REFERENCE";

// The RGB pixels stb decodes from `path` (for JPEG, whose pixels differ from what was written).
std::vector<uint8_t> decoded(const std::string& path, int& w, int& h) {
    int n = 0;
    uint8_t* data = stbi_load(path.c_str(), &w, &h, &n, 3);
    EXPECT_NE(data, nullptr) << path;
    std::vector<uint8_t> px(data, data + static_cast<size_t>(w) * h * 3);
    stbi_image_free(data);
    return px;
}

// What the library documents for an f32 NCHW input: BGR planes of the RGB pixels, values 0..255.
Tensor expected_nchw_bgr(const std::vector<uint8_t>& rgb, int w, int h, int64_t batch = 1) {
    Tensor t(ElementType::f32, {batch, 3, h, w});
    float* out = t.data<float>();
    for (int64_t n = 0; n < batch; ++n)
        for (int c = 0; c < 3; ++c)
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    out[((n * 3 + c) * h + y) * w + x] = rgb[(static_cast<size_t>(y) * w + x) * 3 + (2 - c)];
    return t;
}

// The lines of a `mosaic run` output that describe the outputs.
std::vector<std::string> output_lines(const std::string& out) {
    std::vector<std::string> lines;
    bool in_outputs = false;
    for (const auto& line : lines_of(out)) {
        in_outputs = in_outputs || line.rfind("Output '", 0) == 0;
        if (in_outputs) lines.push_back(line);
    }
    return lines;
}

// ---------------------------------------------------------------------------------------------
// The library

TEST(ImageLibrary, GeometryFromTheInputShape) {
    const image::ImageGeometry nchw = image::image_geometry({2, 3, 8, 5});
    EXPECT_EQ(nchw.layout, image::Layout::nchw);
    EXPECT_EQ(nchw.batch, 2);
    EXPECT_EQ(nchw.height, 8);
    EXPECT_EQ(nchw.width, 5);
    const image::ImageGeometry nhwc = image::image_geometry({1, 8, 5, 3});
    EXPECT_EQ(nhwc.layout, image::Layout::nhwc);
    EXPECT_EQ(nhwc.channels, 3);
    EXPECT_EQ(nhwc.height, 8);
    EXPECT_EQ(nhwc.width, 5);
    EXPECT_EQ(image::image_geometry({1, 1, 4, 4}).channels, 1);
    for (const Shape& bad : {Shape{1, 10}, Shape{1, 4, 8, 8}, Shape{3, 32, 32}, Shape{1, 3, 0, 4}})
        EXPECT_THROW(image::image_geometry(bad), image::ImageError) << to_string(bad);
}

TEST(ImageLibrary, ImagePathsByExtension) {
    EXPECT_TRUE(image::is_image_path("a/b.png"));
    EXPECT_TRUE(image::is_image_path("B.JPG"));
    EXPECT_TRUE(image::is_image_path("c.jpeg"));
    EXPECT_FALSE(image::is_image_path("d.npy"));
    EXPECT_FALSE(image::is_image_path("png"));
}

TEST(ImageLibrary, NhwcU8BgrAndRgb) {
    TempDir dir;
    write_image(dir / "p.png", 4, 2, 3);
    const Tensor bgr = image::load_images({dir / "p.png"}, ElementType::u8, {1, 2, 4, 3});
    const Tensor rgb = image::load_images({dir / "p.png"}, ElementType::u8, {1, 2, 4, 3}, image::ChannelOrder::rgb);
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 4; ++x)
            for (int c = 0; c < 3; ++c) {
                const size_t at = (static_cast<size_t>(y) * 4 + x) * 3 + c;
                EXPECT_EQ(rgb.data<uint8_t>()[at], pattern(y, x, c));
                EXPECT_EQ(bgr.data<uint8_t>()[at], pattern(y, x, 2 - c));
            }
}

TEST(ImageLibrary, GreyInputAndResize) {
    TempDir dir;
    write_image(dir / "g.png", 6, 6, 1);
    const Tensor same = image::load_images({dir / "g.png"}, ElementType::f32, {1, 1, 6, 6});
    EXPECT_EQ(same.data<float>()[7], pattern(1, 1, 0));
    const Tensor half = image::load_images({dir / "g.png"}, ElementType::f32, {1, 1, 3, 3});
    EXPECT_EQ(half.get_shape(), (Shape{1, 1, 3, 3}));
}

TEST(ImageLibrary, OneImageOrOnePerBatchItem) {
    TempDir dir;
    write_image(dir / "a.png", 4, 4, 3);
    write_image(dir / "b.png", 2, 2, 3);  // resized to 4x4: other pixels than a.png
    const Tensor one = image::load_images({dir / "a.png"}, ElementType::u8, {2, 3, 4, 4});
    const uint8_t* p = one.data<uint8_t>();
    EXPECT_TRUE(std::equal(p, p + 48, p + 48)) << "one image fills every batch item";
    const Tensor two = image::load_images({dir / "a.png", dir / "b.png"}, ElementType::u8, {2, 3, 4, 4});
    EXPECT_TRUE(std::equal(p, p + 48, two.data<uint8_t>())) << "the first file is batch item 0";
    EXPECT_FALSE(std::equal(p, p + 48, two.data<uint8_t>() + 48)) << "the second file is batch item 1";
    EXPECT_THROW(image::load_images({dir / "a.png", dir / "b.png", dir / "a.png"}, ElementType::u8, {2, 3, 4, 4}),
                 image::ImageError);
}

TEST(ImageLibrary, ErrorsNameTheFileAndTheCause) {
    TempDir dir;
    write_text(dir / "text.png", "this is a text file, not a picture\n");
    try {
        image::load_images({dir / "text.png"}, ElementType::f32, {1, 3, 4, 4});
        FAIL() << "a text file was read as an image";
    } catch (const image::ImageError& e) {
        EXPECT_TRUE(contains(e.what(), "'" + (dir / "text.png") + "'")) << e.what();
        EXPECT_TRUE(contains(e.what(), "unknown image type")) << e.what();  // stb's reason
    }
    try {
        image::load_images({dir / "missing.jpg"}, ElementType::f32, {1, 3, 4, 4});
        FAIL() << "a missing file was read";
    } catch (const image::ImageError& e) {
        EXPECT_TRUE(contains(e.what(), "'" + (dir / "missing.jpg") + "' does not exist")) << e.what();
    }
    write_image(dir / "ok.png", 4, 4, 3);
    EXPECT_THROW(image::load_images({dir / "ok.png"}, ElementType::i64, {1, 3, 4, 4}), image::ImageError);
}

// ---------------------------------------------------------------------------------------------
// mosaic run -i IMAGE

// Writes `name` (a 32x32 image), the .npy holding what the library makes of it, and runs the
// default model on both; `spec` is how -i names the image ("" or "data=").
void expect_same_outputs_as_npy(const TempDir& dir, const std::string& name, const std::string& spec) {
    write_image(dir / name, 32, 32, 3);
    int w = 0, h = 0;
    const std::vector<uint8_t> rgb = decoded(dir / name, w, h);
    npy::write(dir / "in.npy", expected_nchw_bgr(rgb, w, h));
    const CliResult image = run_mosaic({"run", "-m", default_model(), "-d", kHetero, "-i", spec + (dir / name)});
    const CliResult array = run_mosaic({"run", "-m", default_model(), "-d", kHetero, "-i", "data=" + (dir / "in.npy")});
    ASSERT_EQ(image.exit_code, 0) << image;
    ASSERT_EQ(array.exit_code, 0) << array;
    EXPECT_TRUE(contains(image.out, "Input 'data': f32 [1,3,32,32] from " + (dir / name) + " (BGR, NCHW")) << image;
    EXPECT_FALSE(output_lines(image.out).empty()) << image;
    EXPECT_EQ(output_lines(image.out), output_lines(array.out));
}

TEST(CliImage, PngGivesTheSameOutputsAsTheEquivalentNpy) {
    TempDir dir;
    expect_same_outputs_as_npy(dir, "in.png", "");
}

TEST(CliImage, JpegGivesTheSameOutputsAsTheEquivalentNpy) {
    TempDir dir;
    expect_same_outputs_as_npy(dir, "in.jpg", "data=");
}

TEST(CliImage, LargerImageIsResized) {
    TempDir dir;
    write_image(dir / "big.jpg", 80, 60, 3);
    const CliResult r = run_mosaic({"run", "-m", default_model(), "-d", kHetero, "-i", dir / "big.jpg"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "resized to 32x32")) << r;
}

TEST(CliImage, TextFileAsImageIsAClearError) {
    TempDir dir;
    write_text(dir / "notes.jpg", "not a JPEG\n");
    const CliResult r = run_mosaic({"run", "-m", default_model(), "-d", kHetero, "-i", dir / "notes.jpg"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "input 'data'")) << r;
    EXPECT_TRUE(contains(r.err, "cannot read image '" + (dir / "notes.jpg") + "'")) << r;
    EXPECT_TRUE(contains(r.err, "unknown image type")) << r;
}

TEST(CliImage, MissingImageIsAClearError) {
    TempDir dir;
    const CliResult r = run_mosaic({"run", "-m", default_model(), "-d", kHetero, "-i", dir / "absent.png"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "image file '" + (dir / "absent.png") + "' does not exist")) << r;
}

TEST(CliImage, NpyFilesDoNotFillABatch) {
    TempDir dir;
    npy::write(dir / "a.npy", Tensor(ElementType::f32, {1, 3, 32, 32}));
    const CliResult r = run_mosaic(
        {"run", "-m", default_model(), "-d", "REFERENCE", "-i", "data=" + (dir / "a.npy"), "data=" + (dir / "a.npy")});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "only images (JPEG, PNG) fill a batch")) << r;
}

// ---------------------------------------------------------------------------------------------
// mosaic benchmark -i IMAGE

TEST(CliImage, BenchmarkFillsABatchOfTwoWithTwoImages) {
    TempDir dir;
    write_image(dir / "a.png", 32, 32, 3);
    write_image(dir / "b.jpg", 40, 40, 3);
    const CliResult r = run_mosaic({"benchmark", "-m", default_model(), "-d", kHetero, "-niter", "2", "-b", "2", "-i",
                                    dir / "a.png", dir / "b.jpg"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Input 'data': f32 [2,3,32,32] from " + (dir / "a.png") + ", " + (dir / "b.jpg"))) << r;
    EXPECT_TRUE(contains(r.out, "Count: 2 iterations")) << r;

    const CliResult three = run_mosaic({"benchmark", "-m", default_model(), "-d", kHetero, "-niter", "2", "-b", "2",
                                        "-i", dir / "a.png", dir / "b.jpg", dir / "a.png"});
    expect_clean_error(three);
    EXPECT_TRUE(contains(three.err, "3 images given for an input of batch 2")) << three;
}

}  // namespace
}  // namespace mosaic::cli_test
