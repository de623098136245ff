// Softmax (opset1, opset8) along any axis, f32, on oneDNN's softmax over plain tensors.
#pragma once

#include "executor.hpp"
#include "onednn_util.hpp"

#include <memory>

namespace mosaic::cpu_plugin {

class SoftmaxExecutor final : public Executor {
public:
    // nullptr when oneDNN cannot run `node` (another type than f32, a scalar, an empty tensor).
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node);

    void execute(const ExecContext& ctx) const override;
    std::string exec_type() const override { return impl_; }
    size_t scratch_bytes() const override { return scratchpad_desc_.get_size(); }

private:
    SoftmaxExecutor(std::string name, std::vector<ValueId> inputs, std::vector<ValueId> outputs);

    dnnl::engine engine_;
    dnnl::softmax_v2_forward primitive_;
    std::string impl_;
    dnnl::memory::desc desc_, scratchpad_desc_;
};

}  // namespace mosaic::cpu_plugin
