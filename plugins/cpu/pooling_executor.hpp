// MaxPool (opset1, and opset8 when its indices output is unused) and AvgPool, 1D to 3D, f32, on
// oneDNN's pooling, in the layout its source arrives in (a convolution's blocked output, or plain).
// Ceil rounding becomes extra end padding (see window.hpp).
#pragma once

#include "primitive_executor.hpp"
#include "onednn_util.hpp"
#include "window.hpp"

#include <memory>

namespace mosaic::cpu_plugin {

class PoolingExecutor final : public PrimitiveExecutor {
public:
    // nullptr when oneDNN cannot run `node`: another type than f32, MaxPool-8 indices in use, or an
    // averaging whose padding rule oneDNN does not share.
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node);
    // ReduceMean or ReduceMax over every spatial axis, keeping the rank (a global average or max
    // pool), as one window over the whole image: oneDNN's pooling reads a blocked source, which
    // its reduction kernels do not.
    static std::unique_ptr<Executor> create_global(const BuildContext& ctx, size_t node);

    void execute(const ExecContext& ctx) const override;

private:
    PoolingExecutor(std::string name, std::string type, std::vector<ValueId> inputs, std::vector<ValueId> outputs);
    static std::unique_ptr<Executor> build(const BuildContext& ctx, size_t node, dnnl::algorithm algorithm,
                                           const WindowGeometry& window);
    dnnl::memory::desc src_desc_, dst_desc_;
};

}  // namespace mosaic::cpu_plugin
