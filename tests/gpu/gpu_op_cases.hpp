// The numpy-generated op cases (tests/ops/cases) as the GPU suites run them: which the GPU's query
// takes, and which can be built into a model at all.
#pragma once

#include "gpu/gpu_test_util.hpp"
#include "ops/op_case.hpp"
#include "tools/mosaic/op_case_model.hpp"

#include <string>
#include <vector>

namespace mosaic::test::gpu {

// Whether the GPU's query places the op on the GPU; `why` gets its reason when not.
inline bool gpu_takes(const std::shared_ptr<Model>& model, std::string* why = nullptr) {
    const QueryResult q = shared_core().query_model_details(model, "GPU");
    const auto it = q.affinity.find(kOpUnderTest);
    if (it != q.affinity.end() && it->second == "GPU") return true;
    if (why) {
        *why = "the GPU's query does not take it";
        const auto u = q.unsupported.find(kOpUnderTest);
        if (u != q.unsupported.end())
            for (const auto& [device, reason] : u->second) *why += "; " + device + ": " + reason;
    }
    return false;
}

// The cases a model can be built from: error cases fail in shape inference, before any device.
inline std::vector<OpCaseSpec> runnable_cases() {
    std::vector<OpCaseSpec> cases;
    for (OpCaseSpec& c : load_op_cases(MOSAIC_OP_CASES_DIR))
        if (c.error.empty()) cases.push_back(std::move(c));
    return cases;
}

}  // namespace mosaic::test::gpu
