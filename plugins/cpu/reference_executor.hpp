// The fallback executor: one op through the reference kernels (Mosaic::reference_kernels), for
// every op, type or shape that no oneDNN executor covers yet. Single-threaded, exact.
#pragma once

#include "executor.hpp"

#include <mosaic/attributes.hpp>
#include <mosaic/sdk/graph.hpp>

namespace mosaic::cpu_plugin {

class ReferenceExecutor final : public Executor {
public:
    ReferenceExecutor(const sdk::GraphView& graph, const ValueTable& values, size_t node);

    void execute(const ExecContext& ctx) const override;
    std::string exec_type() const override { return "ref"; }

private:
    std::string version_;
    Attributes attrs_;
    std::vector<std::pair<ElementType, Shape>> input_types_, output_types_;
};

}  // namespace mosaic::cpu_plugin
