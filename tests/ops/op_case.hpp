// The op cases (tools/mosaic/op_cases.hpp) with gtest's reporting. Shared by the kernel-level
// runner and the runners that go through Core and a plugin.
#pragma once

#include "tools/mosaic/op_cases.hpp"

#include <gtest/gtest.h>

#include <ostream>

namespace mosaic::op_cases {
// gtest prints a parameter with this instead of its bytes (found by argument-dependent lookup).
inline void PrintTo(const OpCaseSpec& c, std::ostream* os) { *os << c.id; }
}  // namespace mosaic::op_cases

namespace mosaic::test {

using namespace mosaic::op_cases;

inline void expect_close(const OpCaseTensor& expected, const void* actual, double rtol, double atol,
                         const std::string& what) {
    for (const std::string& m : mismatches(expected, actual, rtol, atol, what)) ADD_FAILURE() << m;
}

}  // namespace mosaic::test
