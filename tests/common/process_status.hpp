// A figure of this process's memory from /proc/self/status: VmRSS (resident), RssFile (resident
// pages of mapped files), VmHWM (peak resident), ...
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace mosaic::test {

// The value of `key` ("VmRSS", "RssFile") in KiB, -1 where the system reports none.
inline int64_t process_status_kib(const std::string& key) {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind(key + ":", 0) == 0) return std::stoll(line.substr(key.size() + 1));
    return -1;
}

}  // namespace mosaic::test
