// One infer request of a CPU compiled model. It owns everything an inference writes: the arena of
// the memory plan's buffers, the scratch area its executors share, and a oneDNN stream (oneDNN's
// execution context, not an execution stream of the model), all made once; so requests of one model
// run concurrently from several threads, sharing nothing but the wait for a free execution stream.
#pragma once

#include "cpu_compiled_model.hpp"

#include <cstdlib>
#include <memory>
#include <vector>

namespace mosaic::cpu_plugin {

class CpuInferRequest : public sdk::InferRequest {
public:
    explicit CpuInferRequest(const CpuCompiledModel& model);

    void infer(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) override;
    std::vector<sdk::ProfilingRecord> profiling() const override { return records_; }

private:
    struct Free {
        void operator()(uint8_t* p) const { std::free(p); }
    };
    using Aligned = std::unique_ptr<uint8_t, Free>;
    static Aligned allocate(size_t bytes);

    void bind(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs);
    void run(const Executor& e, ExecContext& ctx);

    const CpuCompiledModel& model_;
    sdk::Reservation memory_;  // the arena and scratch, held on the device's ledger before they are allocated
    Aligned arena_, scratch_;
    dnnl::stream stream_;
    std::vector<void*> data_;  // per value: constants and buffers fixed, the caller's tensors per call
    std::vector<ValueId> caller_values_;  // the graph inputs and outputs, bound per call
    std::vector<sdk::ProfilingRecord> records_;
};

}  // namespace mosaic::cpu_plugin
