// Files for the readers, which take paths: a scratch folder per process, rewritten for every input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace mosaic::fuzz {

// <temp dir>/mosaic-fuzz-<pid>/<name>, created on first use and removed at exit.
std::string scratch_path(const std::string& name);

// Writes `bytes` to scratch_path(name) (creating its folders) and returns the path.
std::string write_scratch(const std::string& name, std::string_view bytes);

// The two parts of an input that holds two files, "FIRST\0SECOND" (an IR's .xml and .bin): the
// text before the first NUL byte and the bytes after it (empty when there is no NUL).
std::pair<std::string_view, std::string_view> split_at_nul(const uint8_t* data, size_t size);

}  // namespace mosaic::fuzz
