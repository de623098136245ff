// ctest FuzzInputs: runs every fuzz target on its seeds (tests/fuzz/seeds/<inputs>/) and on the
// inputs of the crashes found (tests/fuzz/regressions/<inputs>/), in any build, with no fuzzer:
//   mosaic_fuzz_inputs <tests/fuzz folder> [target...]
// An input fails when it escapes its target with an exception; a crash or a sanitizer report (in the
// ASan build) stops the run, and the input being run is printed before each is started.
#include "fuzz_targets.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using Target = void (*)(const uint8_t*, size_t);

struct NamedTarget {
    const char* name;
    const char* inputs;  // the folder name of its seeds and regression inputs
    Target run;
};

#define MOSAIC_FUZZ_NAMED(name, inputs) NamedTarget{#name, #inputs, mosaic::fuzz::name},
const NamedTarget kTargets[] = {MOSAIC_FUZZ_TARGETS(MOSAIC_FUZZ_NAMED)};
#undef MOSAIC_FUZZ_NAMED

std::vector<fs::path> inputs_of(const fs::path& folder) {
    std::vector<fs::path> files;
    if (fs::is_directory(folder))
        for (const auto& e : fs::directory_iterator(folder))
            if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

// Runs `target` on one file; false (and why, on stderr) when an exception escapes.
bool run_one(const NamedTarget& target, const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::fprintf(stderr, "%s %s\n", target.name, file.string().c_str());
    try {
        target.run(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
        return true;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "FAILED: %s on %s: uncaught exception: %s\n", target.name, file.string().c_str(), e.what());
    } catch (...) {
        std::fprintf(stderr, "FAILED: %s on %s: uncaught exception of an unknown type\n", target.name, file.string().c_str());
    }
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <tests/fuzz folder> [target...]\n", argv[0]);
        return 2;
    }
    const fs::path root = argv[1];
    const std::set<std::string> only(argv + 2, argv + argc);
    int failed = 0;
    for (const auto& target : kTargets) {
        if (!only.empty() && !only.count(target.name)) continue;
        const auto seeds = inputs_of(root / "seeds" / target.inputs);
        const auto regressions = inputs_of(root / "regressions" / target.inputs);
        if (seeds.empty()) {  // a folder renamed or lost would otherwise pass with nothing run
            std::fprintf(stderr, "FAILED: %s has no seeds in %s\n", target.name, (root / "seeds" / target.inputs).c_str());
            ++failed;
        }
        int passed = 0;
        for (const auto* list : {&seeds, &regressions})
            for (const auto& file : *list) passed += run_one(target, file) ? 1 : (++failed, 0);
        std::printf("%-18s %3zu seeds, %3zu regression inputs, %3d passed\n", target.name, seeds.size(),
                    regressions.size(), passed);
    }
    if (failed) std::printf("%d failed\n", failed);
    else std::printf("all passed\n");
    return failed ? 1 : 0;
}
