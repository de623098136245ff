// `mosaic conformance -d GPU` on ONNX's backend node tests: a test whose op the GPU has a kernel for
// runs there and passes; a test with an op the GPU lacks is reported unsupported with the GPU's reason
// and does not fail the run (the whole folder is checked by the ctest gpu_onnx_node_conformance).
#include "cli/cli_runner.hpp"
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace mosaic::test::gpu {
namespace {

const std::string kNodeTests = "/usr/share/libonnx-testdata/data/node";

TEST(GpuConformance, AnOpTheGpuLacksIsUnsupportedNotFailed) {
    const std::string det = kNodeTests + "/test_det_2d", relu = kNodeTests + "/test_relu";
    if (!std::filesystem::exists(det) || !std::filesystem::exists(relu))
        GTEST_SKIP() << "ONNX's node tests are not installed (Debian: libonnx-testdata)";
    const cli_test::CliResult r = cli_test::run_mosaic({"conformance", "-d", "GPU", det, relu});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "unsupported test_det_2d: 1 op(s) not supported on GPU")) << r;
    EXPECT_TRUE(contains(r.out, "the GPU has no kernel for Det")) << r;
    EXPECT_TRUE(contains(r.out, "pass test_relu")) << r;
    EXPECT_TRUE(contains(r.out, "1 passed, 0 failed, 1 skipped")) << r;
}

}  // namespace
}  // namespace mosaic::test::gpu
