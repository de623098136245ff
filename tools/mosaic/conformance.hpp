// Runs ONNX backend-test folders (model.onnx + test_data_set_*/input_N.pb, output_N.pb) on a device
// and compares the outputs with the stored ones.
#pragma once

#include <mosaic/core.hpp>

#include <string>
#include <vector>

namespace mosaic::cli {

enum class Verdict { pass, fail, unsupported };

struct Tolerance {
    double rtol = 1e-3;
    double atol = 1e-5;
};

struct ConformanceResult {
    std::string name;     // the test folder's name, e.g. "test_abs"
    Verdict verdict = Verdict::fail;
    std::string detail;   // why it failed / is unsupported; for a pass, notes such as bound inputs
};

// The test folders under `path`: the folder itself when it holds model.onnx (or model.xml, an IR
// made from it), else its subfolders that do, sorted by name.
std::vector<std::string> find_test_folders(const std::string& path);

// How a test's model is read.
struct ReadMode {
    bool via_ir = false;       // written as IR v11 and read back first (the `mosaic convert` path)
    bool bind_inputs = true;   // inputs bound as constants where a shape needs their values (see read_for)
    bool dynamic = false;      // every dimension of every input dynamic when read (inputs never bound):
                               // each translator and op schema meets shapes it learns only at run time
};

// Runs one test folder. Never throws for a problem of the test itself; that is a fail or unsupported.
ConformanceResult run_conformance_test(Core& core, const std::string& folder, const std::string& device,
                                       const Tolerance& tolerance, const ReadMode& mode = {});

}  // namespace mosaic::cli
