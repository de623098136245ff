// What every benchmark figure names: the CPU it ran on and the load around it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace bench {

// What lscpu prints as "Model name" on x86.
inline std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown";
}

// The 1, 5 and 15 minute load averages.
inline std::string load_average() {
    double l[3] = {0, 0, 0};
    if (getloadavg(l, 3) != 3) return "unknown";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", l[0], l[1], l[2]);
    return buf;
}

}  // namespace bench
