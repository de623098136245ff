// Softmax (opset1, opset8) along any axis, f32, on oneDNN's softmax over plain tensors.
#pragma once

#include "primitive_executor.hpp"
#include "onednn_util.hpp"

#include <memory>

namespace mosaic::cpu_plugin {

class SoftmaxExecutor final : public PrimitiveExecutor {
public:
    // nullptr when oneDNN cannot run `node` (another type than f32, a scalar, an empty tensor).
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node);

    void execute(const ExecContext& ctx) const override;

private:
    SoftmaxExecutor(std::string name, std::vector<ValueId> inputs, std::vector<ValueId> outputs);
    dnnl::memory::desc desc_;
};

}  // namespace mosaic::cpu_plugin
