// mosaic conformance -d DEVICE DIR...: runs ONNX backend-test folders on a device and prints
// pass / fail / unsupported per test and "N passed, N failed, N skipped".
//
// Without --expect the command fails when any test fails (unsupported ones do not count).
// --expect FILE names the tests that must pass (one per line, '#' comments; "name rtol=X atol=Y"
// loosens the tolerance for one test). With it the command fails when a listed test does not pass,
// and also when an unlisted test passes, so the list in the repository only ever grows.
#include "commands.hpp"
#include "common.hpp"
#include "conformance.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace mosaic::cli {

namespace {

struct ConformanceOptions {
    std::string device = "REFERENCE";
    std::vector<std::string> paths;
    std::string expect;
    bool update_expect = false;
    bool quiet = false;
    bool via_ir = false;
    bool no_bind = false;  // --no-bind
    bool dynamic = false;  // --dynamic
    Tolerance tolerance;
};

struct Expectations {
    std::set<std::string> names;
    std::map<std::string, Tolerance> tolerances;
};

Expectations read_expectations(const std::string& path, const Tolerance& fallback) {
    std::ifstream in(path);
    if (!in) throw UsageError("expectation file '" + path + "' cannot be opened");
    Expectations e;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        std::istringstream words(line);
        std::string name, option;
        if (!(words >> name)) continue;
        Tolerance t = fallback;
        while (words >> option) {
            const size_t eq = option.find('=');
            const std::string key = option.substr(0, eq);
            try {
                if (eq == std::string::npos || (key != "rtol" && key != "atol")) throw std::invalid_argument(key);
                (key == "rtol" ? t.rtol : t.atol) = std::stod(option.substr(eq + 1));
            } catch (const std::exception&) {
                throw UsageError(path + ":" + std::to_string(number) + ": '" + option +
                                 "' is not rtol=NUMBER or atol=NUMBER");
            }
        }
        e.names.insert(name);
        if (t.rtol != fallback.rtol || t.atol != fallback.atol) e.tolerances[name] = t;
    }
    return e;
}

const char* verdict_word(Verdict v) {
    switch (v) {
        case Verdict::pass: return "pass";
        case Verdict::fail: return "FAIL";
        case Verdict::unsupported: return "unsupported";
    }
    return "?";
}

// The expectation file with the passing tests added (keeping comments and tolerances).
void update_expectations(const std::string& path, const std::vector<std::string>& added) {
    std::ofstream out(path, std::ios::app);
    for (const auto& name : added) out << name << "\n";
}

void run_conformance(const ConformanceOptions& opts) {
    Expectations expected;
    if (!opts.expect.empty()) expected = read_expectations(opts.expect, opts.tolerance);
    std::vector<std::string> folders;
    for (const auto& p : opts.paths)
        for (auto& f : find_test_folders(p)) folders.push_back(std::move(f));
    if (folders.empty()) throw UsageError("no test folders (with a model.onnx) found");

    Core core;
    size_t passed = 0, failed = 0, skipped = 0;
    std::vector<std::string> regressions, newly_passing;
    std::set<std::string> seen;
    for (const auto& folder : folders) {
        const std::string name = std::filesystem::path(folder).filename().string();
        auto tol = expected.tolerances.find(name);
        ConformanceResult r =
            run_conformance_test(core, folder, opts.device, tol == expected.tolerances.end() ? opts.tolerance : tol->second,
                                 ReadMode{opts.via_ir, !opts.no_bind, opts.dynamic});
        seen.insert(r.name);
        (r.verdict == Verdict::pass ? passed : r.verdict == Verdict::fail ? failed : skipped)++;
        if (!opts.quiet || r.verdict == Verdict::fail)
            std::cout << verdict_word(r.verdict) << " " << r.name << (r.detail.empty() ? "" : ": " + r.detail) << "\n";
        if (opts.expect.empty()) continue;
        const bool listed = expected.names.count(r.name) > 0;
        if (listed && r.verdict != Verdict::pass) regressions.push_back(r.name);
        if (!listed && r.verdict == Verdict::pass) newly_passing.push_back(r.name);
    }
    std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped\n";
    if (opts.expect.empty()) {
        if (failed > 0) throw std::runtime_error(std::to_string(failed) + " test(s) failed");
        return;
    }

    std::string problems;
    for (const auto& name : expected.names)
        if (!seen.count(name)) regressions.push_back(name + " (not found)");
    if (!regressions.empty()) {
        problems += std::to_string(regressions.size()) + " test(s) listed in '" + opts.expect + "' did not pass:";
        for (const auto& n : regressions) problems += " " + n;
    }
    if (!newly_passing.empty()) {
        if (opts.update_expect) {
            update_expectations(opts.expect, newly_passing);
            std::cout << "added " << newly_passing.size() << " newly passing test(s) to " << opts.expect << "\n";
        } else {
            problems += std::string(problems.empty() ? "" : "; ") + std::to_string(newly_passing.size()) +
                        " test(s) pass but are not listed in '" + opts.expect + "' (add them, or rerun with --update-expect):";
            for (const auto& n : newly_passing) problems += " " + n;
        }
    }
    if (!problems.empty()) throw std::runtime_error(problems);
}

}  // namespace

void add_conformance_command(CLI::App& app) {
    auto opts = std::make_shared<ConformanceOptions>();
    CLI::App* cmd = app.add_subcommand("conformance", "Run ONNX backend-test folders on a device and compare outputs");
    cmd->add_option("-d,--device", opts->device, "Device string (default REFERENCE)");
    cmd->add_option("paths", opts->paths, "Test folders (with model.onnx) or folders of them")->required();
    cmd->add_option("--expect", opts->expect, "File listing the tests that must pass (see the command's source)");
    cmd->add_flag("--update-expect", opts->update_expect, "Append newly passing tests to the --expect file");
    cmd->add_flag("--via-ir", opts->via_ir, "Write each model as IR v11 and read it back before running (checks mosaic convert)");
    cmd->add_flag("-q,--quiet", opts->quiet, "Print only failures and the summary");
    cmd->add_flag("--no-bind", opts->no_bind,
                  "Never bind inputs as constants: a model whose shapes need an input's value when it is read fails");
    cmd->add_flag("--dynamic", opts->dynamic,
                  "Read every model with every dimension of every input dynamic (an integer input's last one kept: "
                  "the length of a shape or axes, the width of indices; no input bound): each translator and op schema "
                  "must read shapes known only when the model runs; each data set then runs at its own");
    cmd->add_option("--rtol", opts->tolerance.rtol, "Relative tolerance (default 1e-3)");
    cmd->add_option("--atol", opts->tolerance.atol, "Absolute tolerance (default 1e-5)");
    cmd->callback([opts] { run_conformance(*opts); });
}

}  // namespace mosaic::cli
