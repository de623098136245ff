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

private:
    struct Mapping;
    WeightsFile() = default;

    std::string path_;
    std::unique_ptr<Mapping> mapping_;  // empty for a zero-length file, which cannot be mapped
    const uint8_t* data_ = nullptr;
    uint64_t size_ = 0;
};

}  // namespace mosaic::ir
