// Element-wise functions of one tensor on oneDNN's eltwise primitive, f32: every op fusion.cpp's
// eltwise_of maps (activations, math functions, a binary op with a one-element constant operand),
// and the decomposed activations torch exports (an erf Gelu of five ops, x * Sigmoid(x)) as one
// gelu_erf or swish pass. The reference kernels evaluate these element by element in double on
// one thread; oneDNN's JIT kernels vectorise them and split the tensor over the request's threads.
#pragma once

#include "decomposed_activation.hpp"
#include "primitive_executor.hpp"
#include "fusion.hpp"
#include "onednn_util.hpp"

#include <memory>

namespace mosaic::cpu_plugin {

class EltwiseExecutor final : public PrimitiveExecutor {
public:
    // `node` as one eltwise primitive, or nullptr: no algorithm for it, not f32, an output that
    // broadcasts beyond its input, or oneDNN declines.
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node);

    // The decomposed activation (decomposed_activation_of: an erf Gelu, x * Sigmoid(x)) that starts
    // at `node`, which must be its first op in graph order, as one executor named after its last op
    // with the activation's type; `absorbed` receives its other nodes. nullptr when there is none.
    static std::unique_ptr<Executor> create_decomposed(const BuildContext& ctx, size_t node,
                                                       std::vector<size_t>& absorbed);

    void execute(const ExecContext& ctx) const override;

private:
    EltwiseExecutor(std::string name, std::string type, ValueId src, ValueId dst);
    // `op` applied to `src`, writing `dst` (the output of op.node), named after op.node.
    static std::unique_ptr<Executor> make(const BuildContext& ctx, const std::string& type, ValueId src,
                                          const FusedOp& op);
    dnnl::memory::desc desc_;
};

}  // namespace mosaic::cpu_plugin
