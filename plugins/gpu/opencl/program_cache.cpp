#include "opencl/program_cache.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace mosaic::gpu_plugin {

namespace {

constexpr char kMagic[] = "MOSAIC-CLBIN-1\n";

std::string hex(uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

uint64_t key_hash(const CacheKey& key) {
    uint64_t h = fnv1a64(key.identity.data(), key.identity.size());
    h = fnv1a64("\n", 1, h);
    h = fnv1a64(key.options.data(), key.options.size(), h);
    h = fnv1a64("\n", 1, h);
    return fnv1a64(key.source.data(), key.source.size(), h);
}

// Header: magic, identity line, key hash, binary size, binary checksum; then the binary.
std::string header(const CacheKey& key, const std::vector<unsigned char>& binary) {
    std::ostringstream out;
    out << kMagic << key.identity << "\n" << hex(key_hash(key)) << " " << binary.size() << " "
        << hex(fnv1a64(binary.data(), binary.size())) << "\n";
    return out.str();
}

}  // namespace

uint64_t fnv1a64(const void* data, size_t size, uint64_t seed) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < size; ++i) seed = (seed ^ p[i]) * 1099511628211ull;
    return seed;
}

std::string CacheKey::file_in(const std::string& cache_dir) const {
    return (std::filesystem::path(cache_dir) / ("mosaic_gpu_" + hex(key_hash(*this)) + ".clbin")).string();
}

std::optional<std::vector<unsigned char>> read_cached_binary(const CacheKey& key, const std::string& cache_dir,
                                                             std::string& problem) {
    problem.clear();
    const std::string path = key.file_in(cache_dir);
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::istringstream text(bytes);
    std::string magic, identity, hash, checksum;
    size_t size = 0;
    std::getline(text, magic);
    std::getline(text, identity);
    text >> hash >> size >> checksum;
    text.get();  // the newline ending the header
    if (!text || magic + "\n" != kMagic) {
        problem = "'" + path + "' is not a Mosaic GPU program binary";
        return std::nullopt;
    }
    if (identity != key.identity || hash != hex(key_hash(key))) {
        problem = "'" + path + "' was built for another device or driver (" + identity + ")";
        return std::nullopt;
    }
    const size_t start = static_cast<size_t>(text.tellg());
    if (bytes.size() - start != size) {
        problem = "'" + path + "' is truncated (" + std::to_string(bytes.size() - start) + " of " + std::to_string(size) +
                  " bytes)";
        return std::nullopt;
    }
    std::vector<unsigned char> binary(bytes.begin() + static_cast<std::ptrdiff_t>(start), bytes.end());
    if (hex(fnv1a64(binary.data(), binary.size())) != checksum) {
        problem = "'" + path + "' is corrupt (its checksum does not match)";
        return std::nullopt;
    }
    return binary;
}

std::string write_cached_binary(const CacheKey& key, const std::string& cache_dir, const std::vector<unsigned char>& binary) {
    std::error_code ec;
    std::filesystem::create_directories(cache_dir, ec);
    if (ec) return "cannot create the cache folder '" + cache_dir + "': " + ec.message();
    const std::string path = key.file_in(cache_dir);
    const std::string tmp = path + ".tmp" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        const std::string head = header(key, binary);
        out.write(head.data(), static_cast<std::streamsize>(head.size()));
        out.write(reinterpret_cast<const char*>(binary.data()), static_cast<std::streamsize>(binary.size()));
        if (!out) {
            std::filesystem::remove(tmp, ec);
            return "cannot write '" + tmp + "'";
        }
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        return "cannot rename the cache file into '" + path + "'";
    }
    return "";
}

}  // namespace mosaic::gpu_plugin
