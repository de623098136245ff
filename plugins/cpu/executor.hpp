// One step of a compiled model: a oneDNN primitive with its fused ops, or a reference kernel. A
// compiled model is a list of executors in topological order; they are shared by every infer
// request of the model and run concurrently from several, so execute() is const and keeps
// everything that changes per inference in the request (its buffers and scratch).
#pragma once

#include "packed_weights.hpp"
#include "value_table.hpp"

#include <mosaic/sdk/graph.hpp>

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mosaic::cpu_plugin {

// What one inference gives an executor: the data of every value (constants, the caller's tensors,
// the request's buffers), the request's scratch area and its oneDNN stream.
struct ExecContext {
    void* const* data = nullptr;  // per ValueId
    uint8_t* scratch = nullptr;   // at least scratch_bytes() of the executor, 64-byte aligned
    dnnl::stream* stream = nullptr;

    void* operator[](ValueId v) const { return data[v]; }
};

class Executor {
public:
    // `name`: the friendly name of the last op it runs (what profiling reports); `type`: its main op.
    Executor(std::string name, std::string type, std::vector<ValueId> inputs, std::vector<ValueId> outputs)
        : name_(std::move(name)), type_(std::move(type)), inputs_(std::move(inputs)), outputs_(std::move(outputs)) {}
    virtual ~Executor() = default;

    virtual void execute(const ExecContext& ctx) const = 0;
    // The implementation that runs: oneDNN's implementation string ("jit:avx512_core"), or "ref".
    virtual std::string exec_type() const = 0;
    // Bytes of per-request scratch this executor needs while it runs (reordered activations,
    // oneDNN's scratchpad). Executors run one at a time in a request, so they share one area.
    virtual size_t scratch_bytes() const { return 0; }
    // An input whose buffer the first output may take over when that input dies here: a fused
    // residual Add accumulates into the tensor it adds. kNoValue when none.
    // Adds the weights it packed (packed_weights.hpp) to `totals`.
    virtual void count_packed_weights(PackedWeightsTotals& totals) const { (void)totals; }
    virtual ValueId reusable_input() const { return kNoValue; }

    const std::string& name() const { return name_; }
    const std::string& type() const { return type_; }
    const std::vector<ValueId>& inputs() const { return inputs_; }
    const std::vector<ValueId>& outputs() const { return outputs_; }

private:
    std::string name_, type_;
    std::vector<ValueId> inputs_, outputs_;
};

// What an executor factory reads at compile time, and the layouts it sets: a factory that keeps a
// blocked layout sets its intermediate output's layout (ValueTable::set_layout).
struct BuildContext {
    const sdk::GraphView& graph;
    ValueTable& values;
    const dnnl::engine& engine;
    // What convolutions and MatMuls with constant weights compute in (INFERENCE_PRECISION_HINT):
    // f32, or bf16, where their activations between executors are stored in bf16 too.
    dnnl::memory::data_type compute = dnnl::memory::data_type::f32;
    // DYNAMIC_QUANTIZATION_GROUP_SIZE: the compressed MatMul's activations quantized to int8 in
    // groups of this many values (compressed_matmul_vnni.hpp); 0: they stay f32.
    int64_t dynamic_quantization_group = 0;
    // CPU_WEIGHTS_IN_PLACE: f32 MatMul weights read where the host holds them, not packed (one copy
    // of an LLM's weights in memory instead of two).
    bool weights_in_place = false;
};

}  // namespace mosaic::cpu_plugin
