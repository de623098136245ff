// mosaic verify-plugin DEVICE: the conformance kit for plugin writers. Runs the checks of
// verify_plugin_checks.hpp on a registered device (an orchestrator with its list:
// HETERO:CPU,REFERENCE), prints PASS / FAIL / SKIP per check with why, and fails (exit 1) when any
// check fails. docs/plugin-writers-guide.md describes each check.
#include "commands.hpp"
#include "common.hpp"
#include "verify_plugin_checks.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>

namespace mosaic::cli {

namespace {

namespace fs = std::filesystem;

// Where the op cases are when --op-cases is not given: $MOSAIC_OP_CASES, the source tree of this
// build (tests/ops/cases), or share/mosaic/op_cases beside an installed bin/mosaic. "" if none.
std::string default_op_cases() {
    if (const char* env = std::getenv("MOSAIC_OP_CASES"); env && *env) return env;
    std::error_code ec;
#ifdef MOSAIC_SOURCE_OP_CASES
    if (fs::is_directory(MOSAIC_SOURCE_OP_CASES, ec)) return MOSAIC_SOURCE_OP_CASES;
#endif
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path installed = exe.parent_path().parent_path() / "share" / "mosaic" / "op_cases";
        if (fs::is_directory(installed, ec)) return installed.string();
    }
    return "";
}

const char* label(Outcome o) { return o == Outcome::pass ? "PASS" : o == Outcome::fail ? "FAIL" : "SKIP"; }

void run_verify_plugin(VerifyOptions options, double timeout_s) {
    options.timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
    if (options.op_cases.empty()) options.op_cases = default_op_cases();
    else if (!fs::is_directory(options.op_cases)) throw UsageError("--op-cases '" + options.op_cases + "' is not a folder");
    Core core;
    std::cout << "verify-plugin " << options.device << " (registry " << core.registry_path() << ")\n";
    size_t passed = 0, failed = 0, skipped = 0;
    for (const CheckResult& r : run_verify_checks(core, options)) {
        std::cout << label(r.outcome) << "  " << std::left << std::setw(11) << r.name << " " << r.detail << std::endl;
        (r.outcome == Outcome::pass ? passed : r.outcome == Outcome::fail ? failed : skipped)++;
    }
    std::cout << "summary: " << passed << " passed, " << failed << " failed, " << skipped << " skipped" << std::endl;
    if (failed)
        throw std::runtime_error("verify-plugin " + options.device + ": " + std::to_string(failed) +
                                 " check(s) failed; see the FAIL lines above and docs/plugin-writers-guide.md");
}

}  // namespace

void add_verify_plugin_command(CLI::App& app) {
    auto opts = std::make_shared<VerifyOptions>();
    auto timeout_s = std::make_shared<double>(10.0);
    CLI::App* cmd = app.add_subcommand(
        "verify-plugin", "Check a device plugin against the plugin contract: ABI, properties, ops against REFERENCE, "
                         "async, threads, export, bad inputs");
    cmd->add_option("device", opts->device, "Registered device (an orchestrator with its list: HETERO:CPU,REFERENCE)")
        ->required();
    cmd->add_option("--op-cases", opts->op_cases, "Folder of op cases (default: the build's tests/ops/cases or the installed share/mosaic/op_cases)");
    cmd->add_option("--cases-per-op", opts->cases_per_op, "Run at most N claimed cases per op type (default: all)");
    cmd->add_option("--reference", opts->reference, "Device whose results count as right (default REFERENCE)");
    cmd->add_option("--rtol", opts->rtol, "Relative tolerance floor against REFERENCE (default 1e-4)");
    cmd->add_option("--atol", opts->atol, "Absolute tolerance floor against REFERENCE (default 1e-5)");
    cmd->add_option("--model", opts->model,
                    "A model to compare value by value against the reference (the \"model\" check; mosaic compare "
                    "names the first op that differs)");
    cmd->add_option("--threads", opts->threads, "Concurrent requests in the threads check (default 4)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--timeout", *timeout_s, "Seconds one asynchronous inference may take (default 10)")
        ->check(CLI::PositiveNumber);
    cmd->callback([opts, timeout_s] { run_verify_plugin(*opts, *timeout_s); });
}

}  // namespace mosaic::cli
