#include "reference_executor.hpp"

#include <mosaic/reference/kernels.hpp>
#include <mosaic/sdk/status.hpp>

namespace mosaic::cpu_plugin {

namespace {

std::vector<ValueId> input_values(const sdk::GraphView& g, const ValueTable& values, size_t node) {
    std::vector<ValueId> ids;
    for (size_t i = 0; i < g.input_count(node); ++i) ids.push_back(values.input(node, i));
    return ids;
}

std::vector<ValueId> output_values(const sdk::GraphView& g, const ValueTable& values, size_t node) {
    std::vector<ValueId> ids;
    for (size_t o = 0; o < g.output_count(node); ++o) ids.push_back(values.output(node, o));
    return ids;
}

}  // namespace

ReferenceExecutor::ReferenceExecutor(const sdk::GraphView& g, const ValueTable& values, size_t node)
    : Executor(g.node_name(node), g.type(node), input_values(g, values, node), output_values(g, values, node)),
      version_(g.version(node)),
      attrs_(g.attributes(node)) {
    for (ValueId v : inputs()) input_types_.emplace_back(values[v].type, values[v].shape);
    for (ValueId v : outputs()) output_types_.emplace_back(values[v].type, values[v].shape);
}

void ReferenceExecutor::execute(const ExecContext& ctx) const {
    reference::KernelArgs args{type(), version_, attrs_, {}, {}};
    for (size_t i = 0; i < inputs().size(); ++i)
        args.inputs.push_back({input_types_[i].first, input_types_[i].second, ctx[inputs()[i]]});
    for (size_t o = 0; o < outputs().size(); ++o)
        args.outputs.push_back({output_types_[o].first, output_types_[o].second, ctx[outputs()[o]]});
    try {
        reference::run_reference_kernel(args);
    } catch (const std::exception& e) {
        throw sdk::Error(MOSAIC_ERROR_GENERAL, "node '" + name() + "' (" + type() + "-" + version_ + "): " + e.what());
    }
}

}  // namespace mosaic::cpu_plugin
