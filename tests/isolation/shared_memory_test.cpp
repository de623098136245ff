// The shared memory an isolated plugin's weights, tensors and exported blobs travel in: what one
// process writes the other reads, and a peer that announces more bytes than its region holds is
// refused when the region is mapped, not crashed on (SIGBUS) when the missing pages are touched.
#include "isolation/shared_memory.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace mosaic::test {
namespace {

TEST(SharedMemory, WhatOneMappingWritesTheOtherReads) {
    SharedMemory region = SharedMemory::create(4096, "a test");
    std::memcpy(region.data(), "weights", 8);
    const SharedMemory peer = SharedMemory::adopt(dup(region.fd()), 4096, "a test's peer");
    EXPECT_STREQ(reinterpret_cast<const char*>(peer.data()), "weights");
    EXPECT_EQ(peer.size(), 4096u);
}

TEST(SharedMemory, ARegionSmallerThanAnnouncedIsRefusedNamingBothSizes) {
    const SharedMemory region = SharedMemory::create(16, "a test");
    try {
        SharedMemory::adopt(dup(region.fd()), 1 << 20, "a model exported on device 'ACME'");
        FAIL() << "a region of 16 bytes was mapped as 1 MiB";
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        for (const char* part : {"a model exported on device 'ACME'", "16 bytes", "1048576"})
            EXPECT_NE(what.find(part), std::string::npos) << part << " in: " << what;
    }
}

}  // namespace
}  // namespace mosaic::test
