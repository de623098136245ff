// The checks of `mosaic verify-plugin`: the plugin contract (mosaic/plugin_abi.h) exercised
// through Core, as an application would meet it. Each check returns PASS, FAIL (with why) or SKIP
// (with why: the plugin does not offer what the check needs), and never throws for a fault of the
// plugin: a fault is a FAIL. A plugin that crashes the process still ends the run, which the
// caller sees as a non-zero exit without a report.
#pragma once

#include <mosaic/core.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace mosaic::cli {

enum class Outcome { pass, fail, skip };

struct CheckResult {
    std::string name;    // "abi", "properties", "ops", "async", "threads", "export", "bad-inputs", "memory", "model"
    Outcome outcome = Outcome::fail;
    std::string detail;  // why it failed or was skipped; what was checked when it passed
};

struct VerifyOptions {
    std::string device;                  // a device string: "CPU", "HETERO:CPU,REFERENCE"
    std::string reference = "REFERENCE"; // the device whose results count as right
    std::string op_cases;                // the folder of op cases (tests/ops/cases); empty: none found
    size_t cases_per_op = 0;             // at most this many claimed cases per op type; 0: all
    double rtol = 1e-4, atol = 1e-5;     // floors under each case's own tolerance
    size_t threads = 4;                  // concurrent requests
    size_t inferences_per_thread = 20;
    std::chrono::milliseconds timeout{10000};  // for one asynchronous inference
    std::string model;                   // --model: compared value by value (compare.hpp); empty: skipped
};

CheckResult check_abi(Core& core, const VerifyOptions& options);
CheckResult check_properties(Core& core, const VerifyOptions& options);
CheckResult check_ops(Core& core, const VerifyOptions& options);
CheckResult check_async(Core& core, const VerifyOptions& options);
CheckResult check_threads(Core& core, const VerifyOptions& options);
CheckResult check_export(Core& core, const VerifyOptions& options);
CheckResult check_bad_inputs(Core& core, const VerifyOptions& options);
// The device-memory members (ABI 1.3): DEVICE_MEMORY consistent, buffers that carry a tensor between
// two of the device's subgraphs (verify_plugin_memory.cpp).
CheckResult check_memory(Core& core, const VerifyOptions& options);
// `mosaic compare`'s comparison of options.model on the device against the reference, as a check.
CheckResult check_model(Core& core, const VerifyOptions& options);

// Runs `fn`; returns "" or the message of what it threw (a check's way of catching a plugin's fault).
std::string error_of(const std::function<void()>& fn);

// Every check in the order above; later checks are skipped once "abi" fails (no device to test).
std::vector<CheckResult> run_verify_checks(Core& core, const VerifyOptions& options);

}  // namespace mosaic::cli
