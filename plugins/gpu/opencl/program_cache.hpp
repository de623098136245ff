// OpenCL program binaries on disk, under CACHE_DIR (OpenVINO's property), so a second compile of a
// model skips the OpenCL compiler. One file per program: <cache_dir>/mosaic_gpu_<key>.clbin, where
// the key hashes the device and driver (a binary runs only where it was built), the build options
// and the source text. The file starts with a header holding the identity and a checksum of the
// binary, so a truncated, corrupt or foreign file is recognised before any driver sees it; such a
// file is ignored with a warning and rewritten.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mosaic::gpu_plugin {

struct CacheKey {
    std::string identity;  // device and driver
    std::string options;
    std::string source;

    std::string file_in(const std::string& cache_dir) const;
};

// The binary stored for `key`, or nothing when there is none (no file) or it is unusable (then
// `problem` says why: the caller warns and rebuilds).
std::optional<std::vector<unsigned char>> read_cached_binary(const CacheKey& key, const std::string& cache_dir,
                                                             std::string& problem);
// Writes atomically (a temporary file renamed into place); returns why not, or "".
std::string write_cached_binary(const CacheKey& key, const std::string& cache_dir, const std::vector<unsigned char>& binary);

uint64_t fnv1a64(const void* data, size_t size, uint64_t seed = 1469598103934665603ull);

}  // namespace mosaic::gpu_plugin
