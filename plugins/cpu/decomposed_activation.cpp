#include "decomposed_activation.hpp"

#include <mosaic/sdk/decomposed_patterns.hpp>

namespace mosaic::cpu_plugin {

bool decomposed_activation_of(const sdk::GraphView& g, const ValueTable& values, ValueId x, FusedOp& op) {
    std::vector<size_t> nodes;
    op = FusedOp{};
    op.kind = FusedOp::Kind::eltwise;
    switch (sdk::patterns::decomposed_activation(g, values, x, nodes)) {
        case sdk::patterns::DecomposedActivation::gelu_erf: op.algorithm = dnnl::algorithm::eltwise_gelu_erf; break;
        case sdk::patterns::DecomposedActivation::swish:
            op.algorithm = dnnl::algorithm::eltwise_swish;
            op.alpha = 1.0f;
            break;
        default: return false;
    }
    op.node = nodes.back();
    op.absorbed.assign(nodes.begin(), nodes.end() - 1);
    return true;
}

}  // namespace mosaic::cpu_plugin
