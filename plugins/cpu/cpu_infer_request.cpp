#include "cpu_infer_request.hpp"

#include <chrono>
#include <cstring>
#include <ctime>

namespace mosaic::cpu_plugin {

namespace {

uint64_t thread_cpu_us() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000u + static_cast<uint64_t>(ts.tv_nsec) / 1000u;
}

// The host checks tensors against the model it compiled; checked again because an executor must
// never run over a buffer of another size than its value.
void check_tensor(const char* what, size_t index, ElementType type, const Shape& shape, const Value& v) {
    if (type != v.type || shape != v.shape)
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, std::string(what) + " " + std::to_string(index) + " is " +
                                                            to_string(type) + " " + to_string(shape) + ", the model expects " +
                                                            to_string(v.type) + " " + to_string(v.shape));
}

}  // namespace

CpuInferRequest::Aligned CpuInferRequest::allocate(size_t bytes) {
    if (bytes == 0) return nullptr;
    auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
    if (!p)
        throw sdk::Error(MOSAIC_ERROR_OUT_OF_MEMORY,
                         "CPU infer request: cannot allocate " + std::to_string(bytes) + " bytes of activation memory");
    return Aligned(p);
}

CpuInferRequest::CpuInferRequest(const CpuCompiledModel& model)
    : model_(model),
      memory_(model.ledger(), model.request_bytes(), model.config().memory_limit, "a request (its activations and scratch)"),
      arena_(allocate(model.memory_plan().arena_bytes)),
      scratch_(allocate(model.scratch_bytes())),
      stream_(model.engine()),
      data_(model.values().size(), nullptr) {
    const ValueTable& values = model.values();
    const MemoryPlan& plan = model.memory_plan();
    for (ValueId v = 0; v < values.size(); ++v) {
        if (values[v].is_constant()) data_[v] = const_cast<void*>(values[v].constant);
        if (plan.buffer_of[v] != MemoryPlan::kNoBuffer) data_[v] = arena_.get() + plan.buffer_offsets[plan.buffer_of[v]];
        if (values[v].kind == Value::Kind::input || values[v].kind == Value::Kind::output) caller_values_.push_back(v);
    }
}

void CpuInferRequest::bind(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) {
    const ValueTable& values = model_.values();
    if (inputs.size() != values.graph_input_count() || outputs.size() != values.graph_output_count())
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT,
                         "got " + std::to_string(inputs.size()) + " inputs and " + std::to_string(outputs.size()) +
                             " outputs, the model has " + std::to_string(values.graph_input_count()) + " and " +
                             std::to_string(values.graph_output_count()));
    for (ValueId v : caller_values_) {
        const Value& value = values[v];
        if (value.kind == Value::Kind::input) {
            const ConstTensorView& t = inputs[value.io_index];
            check_tensor("input", value.io_index, t.type, t.shape, value);
            data_[v] = const_cast<void*>(t.data);  // read only: no executor writes a graph input
        } else if (value.kind == Value::Kind::output) {
            const TensorView& t = outputs[value.io_index];
            check_tensor("output", value.io_index, t.type, t.shape, value);
            data_[v] = t.data;
        }
    }
}

void CpuInferRequest::run(const Executor& e, ExecContext& ctx) {
    const auto wall0 = std::chrono::steady_clock::now();
    const uint64_t cpu0 = model_.config().perf_count ? thread_cpu_us() : 0;
    try {
        e.execute(ctx);
    } catch (const dnnl::error& error) {
        throw sdk::Error(MOSAIC_ERROR_DEVICE, "node '" + e.name() + "' (" + e.type() + ", " + e.exec_type() +
                                                  "): oneDNN failed: " + error.what());
    }
    if (model_.config().perf_count) {
        const auto wall = std::chrono::steady_clock::now() - wall0;
        records_.push_back({e.name(), e.type(), e.exec_type(), MOSAIC_PROFILING_EXECUTED,
                            static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(wall).count()),
                            thread_cpu_us() - cpu0});
    }
}

void CpuInferRequest::infer(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) {
    bind(inputs, outputs);
    records_.clear();
    // Waits for a free stream; the slot frees it again on every way out of this function.
    const StreamLimiter::Slot stream = model_.stream_limiter().acquire();
    const int threads = model_.config().streams.threads_per_stream;
    const auto compute = [&] {
        ThreadScope scope(threads);
        ExecContext ctx{data_.data(), scratch_.get(), &stream_};
        for (const auto& e : model_.executors()) run(*e, ctx);
        stream_.wait();
    };
    // Its OpenMP regions start from one of the device's threads (stream_threads.hpp).
    model_.stream_threads().run_team(threads, compute);
    for (const ResultCopy& copy : model_.values().result_copies()) {
        const size_t bytes = model_.values()[copy.from].byte_size();
        if (bytes) std::memcpy(outputs[copy.output].data, data_[copy.from], bytes);
    }
}

}  // namespace mosaic::cpu_plugin
