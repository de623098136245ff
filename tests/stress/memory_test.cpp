// Memory stays flat under load: once the stress mix (stress_load.hpp) has warmed up, thousands more
// inferences leave the heap where it was. The allowance is below what leaking the smallest block
// (32 bytes in glibc) once per inference would add, so any per-inference leak or ever-growing
// record fails the test; benchmarks/soak/run.sh measures the same over 100,000 inferences.
#include "stress/memory_usage.hpp"
#include "stress/stress_load.hpp"

#include "common/test_checks.hpp"

#include <gtest/gtest.h>

#include <cstdio>

namespace mosaic::test::stress {
namespace {

constexpr int kThreads = 8;
// The heap keeps growing a little for the first few thousand inferences (by tens of KiB, less and
// less: containers reaching the size the load needs), then moves by a few KiB either way.
constexpr int64_t kWarmupPerThread = 1000;
constexpr int64_t kMeasuredPerThread = 1000;  // 8,000 inferences: a 32-byte leak each is 256 KiB
constexpr int64_t kAllowedBytesPerInference = 16;

class MemoryOn : public ::testing::TestWithParam<std::string> {};

TEST_P(MemoryOn, HeapStaysFlatOverThousandsOfInferences) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "a sanitizer's allocator replaces glibc's, whose count this reads; LeakSanitizer "
                    "checks leaks in that build";
#endif
    Core core;
    StressLoad load(core, GetParam());
    load.compute_serial();
    // Warm-up: threads the devices start on demand, caches filled on first use, the allocator's
    // arenas, containers grown to their working size.
    ASSERT_EQ(load.run(kThreads, kWarmupPerThread).mismatches, 0);
    const int64_t heap_before = heap_bytes_in_use(), rss_before = rss_kib();
    const LoadResult result = load.run(kThreads, kMeasuredPerThread);
    const int64_t heap_after = heap_bytes_in_use(), rss_after = rss_kib();
    EXPECT_EQ(result.mismatches, 0);
    std::printf("[ FIGURES  ] %s: %lld inferences after warm-up: heap in use %lld -> %lld bytes (%+lld), "
                "RSS %lld -> %lld KiB\n",
                GetParam().c_str(), static_cast<long long>(result.requests), static_cast<long long>(heap_before),
                static_cast<long long>(heap_after), static_cast<long long>(heap_after - heap_before),
                static_cast<long long>(rss_before), static_cast<long long>(rss_after));
    EXPECT_LT(heap_after - heap_before, kAllowedBytesPerInference * result.requests)
        << "the heap grew by " << heap_after - heap_before << " bytes over " << result.requests << " inferences";
}

// HETERO:CPU,REFERENCE runs both plugins' code (REFERENCE takes the ops the mix gives it).
INSTANTIATE_TEST_SUITE_P(Devices, MemoryOn, ::testing::Values("HETERO:CPU,REFERENCE"), DeviceTestName());

}  // namespace
}  // namespace mosaic::test::stress
