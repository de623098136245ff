// The model mix of the stress tests: small models that HETERO splits between its first device and
// REFERENCE, so that an inference crosses devices several times and, in the branchy model, runs
// subgraphs of one request side by side.
#pragma once

#include "hetero/hetero_test_util.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace mosaic::test::stress {

struct StressModel {
    std::string name;
    std::shared_ptr<Model> model;
};

// Op types placed on REFERENCE whichever device comes first. The CPU device runs every op, so on
// HETERO:CPU,REFERENCE the split comes from these affinities alone; elsewhere they agree with what
// the first device lacks.
inline const std::set<std::string>& reference_op_types() {
    static const std::set<std::string> types = {"Sigmoid", "Tanh", "Softmax", "Clamp"};
    return types;
}

// Writes an affinity on every op of `model`: what HETERO's query chooses on `device`, except the
// types above, which go to REFERENCE.
inline void place_across_devices(Core& core, const std::shared_ptr<Model>& model, const std::string& device) {
    std::map<std::string, std::string> overrides;
    for (const Node* node : model->get_ops())
        if (reference_op_types().count(node->get_type_name())) overrides[node->get_friendly_name()] = "REFERENCE";
    hetero::set_affinities_over_query(core, model, device, overrides);
}

// The mix, each model placed for `device`: a chain crossing devices four times, two branches that
// run at once and meet again with two outputs, residual blocks crossing twice per block, and the
// bundled CNN (an i32 TopK output after a Softmax on REFERENCE) where the build has it.
inline std::vector<StressModel> stress_models(Core& core, const std::string& device) {
    std::vector<StressModel> mix = {{"scattered_chain", hetero::scattered_chain_model()},
                                    {"branchy", hetero::branchy_model()},
                                    {"residual", hetero::residual_model()}};
    if (auto cnn = hetero::default_cnn(core)) mix.push_back({"mosaic_cnn", cnn});
    for (auto& m : mix) place_across_devices(core, m.model, device);
    return mix;
}

}  // namespace mosaic::test::stress
