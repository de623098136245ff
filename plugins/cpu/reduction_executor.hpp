// ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceL1 and ReduceL2 over constant
// axes on oneDNN's reduction primitive, f32. oneDNN keeps the rank (1 at each reduced axis); the
// graph's output with or without keep_dims has the same bytes, so the destination is described
// with the kept dims whatever the op's keep_dims says.
#pragma once

#include "primitive_executor.hpp"
#include "onednn_util.hpp"

#include <memory>

namespace mosaic::cpu_plugin {

class ReductionExecutor final : public PrimitiveExecutor {
public:
    // nullptr when oneDNN cannot run `node`: another op or element type, axes computed at run
    // time, an empty tensor, or oneDNN declines (a reduction over no axis, say).
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node);
    // Whether `type` is one of the reductions above.
    static bool runs(const std::string& type);

    void execute(const ExecContext& ctx) const override;

private:
    ReductionExecutor(std::string name, std::string type, ValueId src, ValueId dst);
    dnnl::memory::desc src_desc_, dst_desc_;
};

}  // namespace mosaic::cpu_plugin
