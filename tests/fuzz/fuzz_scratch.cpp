#include "fuzz_scratch.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace mosaic::fuzz {

namespace fs = std::filesystem;

namespace {

// Removed at exit, so that neither the millions of runs of a long fuzz session nor the ctest
// FuzzInputs leave anything behind.
struct ScratchFolder {
    fs::path path = fs::temp_directory_path() / ("mosaic-fuzz-" + std::to_string(::getpid()));
    ScratchFolder() { fs::create_directories(path); }
    ~ScratchFolder() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

}  // namespace

std::string scratch_path(const std::string& name) {
    static const ScratchFolder folder;
    return (folder.path / name).string();
}

std::string write_scratch(const std::string& name, std::string_view bytes) {
    const fs::path path = scratch_path(name);
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::logic_error("cannot write " + path.string() + " (is the temp folder full?)");
    return path.string();
}

std::pair<std::string_view, std::string_view> split_at_nul(const uint8_t* data, size_t size) {
    const std::string_view all(reinterpret_cast<const char*>(data), size);
    const size_t nul = all.find('\0');
    if (nul == std::string_view::npos) return {all, {}};
    return {all.substr(0, nul), all.substr(nul + 1)};
}

}  // namespace mosaic::fuzz
