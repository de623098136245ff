#include "fuzz_targets.hpp"

#include <cstdio>
#include <cstdlib>

namespace mosaic::fuzz {

void report_finding(const std::string& target, const std::string& what) {
    std::fprintf(stderr, "mosaic fuzz target %s: %s\n", target.c_str(), what.c_str());
    std::abort();
}

}  // namespace mosaic::fuzz
