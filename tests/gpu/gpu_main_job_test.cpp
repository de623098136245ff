// The main job (scripts/run_default_model.sh) as a user runs it: `mosaic run -pc` of the bundled CNN on
// HETERO:GPU,CPU. The GPU takes the network up to the Softmax and the CPU the top-5 (the GPU has no
// TopK), so the output shows a split over both devices, the counters of both subgraphs and the
// transfer between them, and the outputs written with -o equal REFERENCE's.
#include "cli/cli_runner.hpp"
#include "gpu/gpu_test_util.hpp"

#include "tools/mosaic/npy.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace mosaic::test::gpu {
namespace {

constexpr const char* kMainJobDevice = "HETERO:GPU,CPU";

// The one line of `out` that starts with `prefix`, or "".
std::string line_starting(const std::string& out, const std::string& prefix) {
    for (const auto& line : cli_test::lines_of(out))
        if (line.rfind(prefix, 0) == 0) return line;
    return "";
}

TEST(GpuMainJob, TheDefaultModelSplitsBetweenGpuAndCpuWithItsCountersAndTransfer) {
    cli_test::TempDir dir;
    const cli_test::CliResult r =
        cli_test::run_mosaic({"run", "-m", cli_test::default_model(), "-d", kMainJobDevice, "-pc", "-o", dir / "out"});
    ASSERT_EQ(r.exit_code, 0) << r;

    // "Split: GPU <n> ops, CPU 1 op; 2 subgraphs; 40 bytes cross devices per inference": the [1,10]
    // probabilities go from the GPU to the CPU's TopK.
    const std::string split = line_starting(r.out, "Split: ");
    EXPECT_TRUE(std::regex_match(split, std::regex("^Split: GPU [0-9]+ ops, CPU 1 op; 2 subgraphs; 40 bytes cross "
                                                   "devices per inference$")))
        << split << "\n"
        << r;

    // Both subgraphs' per-layer counters and the transfer's record, then the total.
    EXPECT_FALSE(line_starting(r.out, "subgraph0: conv1").empty()) << r;
    EXPECT_FALSE(line_starting(r.out, "subgraph1: top5").empty()) << r;
    const std::string transfer = line_starting(r.out, "transfer: ");
    EXPECT_TRUE(contains(transfer, "layerType: Transfer")) << r;
    EXPECT_FALSE(line_starting(r.out, "Total time: ").empty()) << r;

    // The outputs equal REFERENCE's on the same (filled) input.
    const cli_test::CliResult ref =
        cli_test::run_mosaic({"run", "-m", cli_test::default_model(), "-d", "REFERENCE", "-o", dir / "ref"});
    ASSERT_EQ(ref.exit_code, 0) << ref;
    const Tensor prob = mosaic::npy::read(dir / "out/prob.npy");
    const Tensor ref_prob = mosaic::npy::read(dir / "ref/prob.npy");
    expect_near(ref_prob.to_vector<float>(), prob.to_vector<float>(), kModelAtol, kModelRtol, kMainJobDevice, "prob");
    const Tensor classes = mosaic::npy::read(dir / "out/top5_classes.npy");
    const Tensor ref_classes = mosaic::npy::read(dir / "ref/top5_classes.npy");
    EXPECT_EQ(classes.to_vector<int32_t>(), ref_classes.to_vector<int32_t>());
}

}  // namespace
}  // namespace mosaic::test::gpu
