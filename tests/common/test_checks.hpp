// Checks the runtime tests share: text containment with a readable failure, the message of what a
// call throws, and a gtest-safe name for a device-parameterized test.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace mosaic::test {

inline ::testing::AssertionResult contains(const std::string& text, const std::string& part) {
    if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

// The message of what `fn` throws, or "(no error)".
template <typename Fn>
std::string error_of(Fn&& fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no error)";
}

// "HETERO:CPU,REFERENCE" -> "HETERO_CPU_REFERENCE", for INSTANTIATE_TEST_SUITE_P.
struct DeviceTestName {
    template <typename Info>
    std::string operator()(const Info& info) const {
        std::string name = info.param;
        for (auto& c : name)
            if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
        return name;
    }
};

}  // namespace mosaic::test
