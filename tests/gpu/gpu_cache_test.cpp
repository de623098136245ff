// The GPU program cache under CACHE_DIR, through the mosaic command line: each run is a new
// process, so a later run reads what an earlier one wrote. A corrupt, truncated or foreign file is
// ignored with a warning naming it and rewritten; the run still gives the same outputs. The default
// model runs as the main job does, on HETERO:GPU,CPU (its TopK is beyond the GPU), with CACHE_DIR
// given to the GPU alone.
#include "cli/cli_runner.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace mosaic::test::gpu {
namespace {

namespace fs = std::filesystem;
using cli_test::contains;

class GpuProgramCache : public ::testing::Test {
protected:
    cli_test::TempDir dir_;

    std::string cache() const { return dir_ / "cache"; }
    cli_test::CliResult run() const {
        const std::string config = dir_ / "config.json";
        cli_test::write_text(config, "{\"GPU\": {\"CACHE_DIR\": \"" + cache() + "\"}}");
        return cli_test::run_mosaic({"run", "-m", cli_test::default_model(), "-d", "HETERO:GPU,CPU", "--config", config});
    }
    std::vector<fs::path> cache_files() const {
        std::vector<fs::path> files;
        if (fs::exists(cache()))
            for (const auto& e : fs::directory_iterator(cache())) files.push_back(e.path());
        return files;
    }
    // The printed output values: what every run must agree on.
    static std::string values_of(const std::string& out) {
        for (const auto& line : cli_test::lines_of(out))
            if (contains(line, "values:")) return line;
        return "";
    }
};

TEST_F(GpuProgramCache, AFirstRunWritesOneBinaryAndALaterRunReadsItSilently) {
    const cli_test::CliResult first = run();
    ASSERT_EQ(first.exit_code, 0) << first;
    const auto files = cache_files();
    ASSERT_EQ(files.size(), 1u) << first;
    EXPECT_EQ(files[0].extension(), ".clbin");
    const auto written = fs::last_write_time(files[0]);

    const cli_test::CliResult second = run();
    ASSERT_EQ(second.exit_code, 0) << second;
    EXPECT_FALSE(contains(second.err, "program cache")) << second;
    EXPECT_EQ(values_of(second.out), values_of(first.out));
    EXPECT_EQ(fs::last_write_time(files[0]), written) << "a good entry is read, not rewritten";
}

TEST_F(GpuProgramCache, ACorruptEntryIsIgnoredWithAWarningAndRewritten) {
    const cli_test::CliResult first = run();
    ASSERT_EQ(first.exit_code, 0) << first;
    const auto files = cache_files();
    ASSERT_EQ(files.size(), 1u) << first;
    const auto size = fs::file_size(files[0]);
    {  // flip bytes in the binary's body, past the header
        std::fstream f(files[0], std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(size - 64));
        f.write("\x13\x37\x13\x37\x13\x37\x13\x37", 8);
    }
    const cli_test::CliResult second = run();
    ASSERT_EQ(second.exit_code, 0) << second;
    EXPECT_TRUE(contains(second.err, "program cache")) << second;
    EXPECT_TRUE(contains(second.err, files[0].string())) << second;
    EXPECT_TRUE(contains(second.err, "rebuilding")) << second;
    EXPECT_EQ(values_of(second.out), values_of(first.out));

    const cli_test::CliResult third = run();  // rewritten: read silently again
    ASSERT_EQ(third.exit_code, 0) << third;
    EXPECT_FALSE(contains(third.err, "program cache")) << third;
}

TEST_F(GpuProgramCache, ATruncatedOrForeignFileIsIgnored) {
    ASSERT_EQ(run().exit_code, 0);
    const auto files = cache_files();
    ASSERT_EQ(files.size(), 1u);
    fs::resize_file(files[0], fs::file_size(files[0]) / 2);
    cli_test::CliResult r = run();
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.err, "program cache")) << r;

    cli_test::write_text(files[0].string(), "not a program binary at all");
    r = run();
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.err, "is not a Mosaic GPU program binary")) << r;
}

}  // namespace
}  // namespace mosaic::test::gpu
