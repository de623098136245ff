#include "reorder_executor.hpp"

namespace mosaic::cpu_plugin {

ReorderExecutor::ReorderExecutor(const BuildContext& ctx, std::string name, ValueId from, ValueId to)
    : Executor(std::move(name), "Reorder", {from}, {to}),
      engine_(ctx.engine),
      from_(layout_of(ctx.values[from])),
      to_(layout_of(ctx.values[to])),
      reorder_(ctx.engine, from_, to_),
      impl_(reorder_.impl()) {}

void ReorderExecutor::execute(const ExecContext& ctx) const {
    reorder_.run(*ctx.stream, dnnl::memory(from_, engine_, ctx[inputs()[0]]), dnnl::memory(to_, engine_, ctx[outputs()[0]]),
                 ctx.scratch);
}

}  // namespace mosaic::cpu_plugin
