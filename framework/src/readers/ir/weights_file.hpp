// The .bin of an IR, memory-mapped read-only. Constants are Buffer views into the mapping and hold
// it alive through a shared_ptr, so the file stays mapped as long as any weight is in use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace mosaic::ir {

class WeightsFile {
public:
    // Maps `path`; throws ModelError naming the file and the system's reason when it cannot.
    static std::shared_ptr<const WeightsFile> open(const std::string& path);

    WeightsFile(const WeightsFile&) = delete;
    WeightsFile& operator=(const WeightsFile&) = delete;
    ~WeightsFile();

    const std::string& path() const { return path_; }
    const uint8_t* data() const { return data_; }
    uint64_t size() const { return size_; }

    // Copies bytes [offset, offset + size) into `out` by reading the file, without touching the
    // mapping: pages of the mapping that were read count in the process's memory as long as it is
    // mapped, and a constant copied out of it (a misaligned weight) is never read there again.
    // Thread-safe; throws ModelError naming the file when the read fails or comes short.
    void read(uint64_t offset, uint64_t size, void* out) const;

private:
    struct Mapping;
    WeightsFile() = default;

    std::string path_;
    std::unique_ptr<Mapping> mapping_;  // empty for a zero-length file, which cannot be mapped
    int fd_ = -1;                       // for read(): the same file
    const uint8_t* data_ = nullptr;
    uint64_t size_ = 0;
};

// Memory for a copy of weights (a misaligned constant's), aligned for every element type. Large
// copies are their own anonymous mapping advised for transparent huge pages, as the file's page
// cache mapping often is: an LLM's decode step streams every weight, and over 4 KiB pages it read
// them ~20% slower (issue 32). Throws ModelError when the memory cannot be had.
std::shared_ptr<void> weights_memory(size_t size);

}  // namespace mosaic::ir
