// The ONNX side of the command line: `mosaic conformance` (pass, fail, unsupported, --expect,
// --via-ir), --shape and the note about dynamic dimensions, and `mosaic convert` from ONNX to IR.
#include "cli/cli_runner.hpp"
#include "onnx_model_builder.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace mosaic::test {
namespace {

using cli_test::run_mosaic;
using cli_test::TempDir;
namespace fs = std::filesystem;

void save_tensor(const std::string& path, const std::string& name, const std::vector<int64_t>& dims,
                 const std::vector<float>& values) {
    ::onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(::onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t.add_dims(d);
    for (float v : values) t.add_float_data(v);
    std::ofstream out(path, std::ios::binary);
    t.SerializeToOstream(&out);
}

// A backend-test folder for y = op(x) (+ w): model.onnx and one data set.
std::string make_test(const TempDir& dir, const std::string& name, const std::string& op,
                      const std::vector<float>& expected) {
    const std::string folder = dir / name;
    fs::create_directories(folder + "/test_data_set_0");
    auto m = onnx_model();
    add_input(m, "x", {-1, 2});
    add_node(m, op, {"x"}, {"y"}, "node");
    add_output(m, "y", {-1, 2});
    save(m, folder + "/model.onnx");
    save_tensor(folder + "/test_data_set_0/input_0.pb", "x", {2, 2}, {-1, 2, -3, 4});
    save_tensor(folder + "/test_data_set_0/output_0.pb", "y", {2, 2}, expected);
    return folder;
}

// Backend-test folders whose input .pb files carry no name are matched by position; a folder with
// a corrupt input is that test's FAIL, and the run goes on to the next one.
TEST(OnnxCli, ConformanceMatchesUnnamedInputsByPositionAndIsolatesBadFolders) {
    TempDir dir;
    for (const std::string name : {"test_unnamed", "test_corrupt"}) {
        const std::string folder = dir / name;
        fs::create_directories(folder + "/test_data_set_0");
        auto m = onnx_model();
        add_input(m, "x", {2, 2});
        add_input(m, "w", {2, 2});
        add_node(m, "Sub", {"x", "w"}, {"y"}, "node");
        add_output(m, "y", {2, 2});
        save(m, folder + "/model.onnx");
        save_tensor(folder + "/test_data_set_0/input_0.pb", "", {2, 2}, {10, 20, 30, 40});
        save_tensor(folder + "/test_data_set_0/input_1.pb", "", {2, 2}, {1, 2, 3, 4});
        save_tensor(folder + "/test_data_set_0/output_0.pb", "", {2, 2}, {9, 18, 27, 36});
    }
    std::ofstream(dir / "test_corrupt/test_data_set_0/input_1.pb", std::ios::trunc) << "not a tensor proto";
    auto r = run_mosaic({"conformance", "-d", "REFERENCE", dir.path()});
    EXPECT_EQ(r.signal, 0) << r;
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_NE(r.out.find("pass test_unnamed"), std::string::npos) << r;
    EXPECT_NE(r.out.find("FAIL test_corrupt: "), std::string::npos) << r;
    EXPECT_NE(r.out.find("input_1.pb"), std::string::npos) << r;
    EXPECT_NE(r.out.find("1 passed, 1 failed, 0 skipped"), std::string::npos) << r;
}

TEST(OnnxCli, ConformancePrintsEachVerdictAndTheSummary) {
    TempDir dir;
    make_test(dir, "test_good", "Relu", {0, 2, 0, 4});
    make_test(dir, "test_wrong", "Relu", {0, 2, 0, 5});
    make_test(dir, "test_unknown", "NoSuchOp", {0, 0, 0, 0});
    auto r = run_mosaic({"conformance", "-d", "REFERENCE", dir.path()});
    EXPECT_EQ(r.exit_code, 1) << r;  // a test failed
    EXPECT_NE(r.out.find("pass test_good"), std::string::npos) << r;
    EXPECT_NE(r.out.find("FAIL test_wrong: data set 0, output 'y': 1 of 4 values differ; first at index 3: got 4, expected 5"),
              std::string::npos) << r;
    EXPECT_NE(r.out.find("unsupported test_unknown: ONNX node 'node' (NoSuchOp, opset 13)"), std::string::npos) << r;
    EXPECT_NE(r.out.find("1 passed, 1 failed, 1 skipped"), std::string::npos) << r;

    auto via_ir = run_mosaic({"conformance", "--via-ir", dir / "test_good"});
    EXPECT_EQ(via_ir.exit_code, 0) << via_ir;
    EXPECT_NE(via_ir.out.find("1 passed, 0 failed, 0 skipped"), std::string::npos) << via_ir;
}

TEST(OnnxCli, ExpectationListCatchesRegressionsAndNewPasses) {
    TempDir dir;
    make_test(dir, "test_good", "Relu", {0, 2, 0, 4});
    make_test(dir, "test_wrong", "Relu", {0, 2, 0, 5});
    cli_test::write_text(dir / "expected.txt", "# must pass\ntest_wrong\n");
    auto r = run_mosaic({"conformance", "--expect", dir / "expected.txt", dir / "test_good", dir / "test_wrong"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_NE(r.err.find("did not pass: test_wrong"), std::string::npos) << r;
    EXPECT_NE(r.err.find("pass but are not listed"), std::string::npos) << r;
    EXPECT_NE(r.err.find("test_good"), std::string::npos) << r;

    cli_test::write_text(dir / "expected.txt", "test_good\n");
    auto ok = run_mosaic({"conformance", "--expect", dir / "expected.txt", dir / "test_good"});
    EXPECT_EQ(ok.exit_code, 0) << ok;

    // A looser tolerance for one test, given in the list.
    cli_test::write_text(dir / "expected.txt", "test_wrong atol=1.5\n");
    auto loose = run_mosaic({"conformance", "--expect", dir / "expected.txt", dir / "test_wrong"});
    EXPECT_EQ(loose.exit_code, 0) << loose;
    cli_test::write_text(dir / "expected.txt", "test_wrong atol=lots\n");
    auto bad = run_mosaic({"conformance", "--expect", dir / "expected.txt", dir / "test_wrong"});
    EXPECT_EQ(bad.exit_code, 1) << bad;
    EXPECT_NE(bad.err.find("expected.txt:1: 'atol=lots'"), std::string::npos) << bad;
}

TEST(OnnxCli, DynamicDimensionsDefaultToOneWithANoteOrTakeShape) {
    TempDir dir;
    const std::string model = make_test(dir, "t", "Relu", {0, 0, 0, 0}) + "/model.onnx";
    auto r = run_mosaic({"run", "-m", model, "-d", "REFERENCE"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_NE(r.err.find("note: dynamic dimensions set to 1"), std::string::npos) << r;
    EXPECT_NE(r.err.find("x [?,2]"), std::string::npos) << r;
    EXPECT_NE(r.out.find("[1,2]"), std::string::npos) << r;

    auto shaped = run_mosaic({"run", "-m", model, "-d", "REFERENCE", "--shape", "x[5,2]"});
    EXPECT_EQ(shaped.exit_code, 0) << shaped;
    EXPECT_EQ(shaped.err.find("note:"), std::string::npos) << shaped;
    EXPECT_NE(shaped.out.find("[5,2]"), std::string::npos) << shaped;

    for (const char* bad : {"x[a,2]", "x[1,2", "y[1,2]", "[1,2,3]"}) {
        auto e = run_mosaic({"run", "-m", model, "-d", "REFERENCE", "--shape", bad});
        EXPECT_EQ(e.exit_code, 1) << bad << "\n" << e;
        EXPECT_FALSE(e.err.empty()) << bad;
    }
}

TEST(OnnxCli, ConvertWritesIrThatRunsTheSame) {
    TempDir dir;
    const std::string model = make_test(dir, "t", "Relu", {0, 0, 0, 0}) + "/model.onnx";
    auto c = run_mosaic({"convert", "-m", model, "-o", dir / "out.xml", "--shape", "x[2,2]"});
    ASSERT_EQ(c.exit_code, 0) << c;
    ASSERT_TRUE(fs::exists(dir / "out.xml"));
    ASSERT_TRUE(fs::exists(dir / "out.bin"));
    auto r = run_mosaic({"run", "-m", dir / "out.xml", "-d", "REFERENCE"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_NE(r.out.find("[2,2]"), std::string::npos) << r;
}

}  // namespace
}  // namespace mosaic::test
