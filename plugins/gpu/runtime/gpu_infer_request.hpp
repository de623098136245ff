// One infer request of a GPU compiled model: its own in-order command queue (kernels chained with
// no host wait between them; requests run concurrently), its buffers of the memory plan, its own
// kernel objects and its scratch buffer, all made once. A caller's tensor in a buffer of the
// instance (ABI 1.3 device memory, HETERO's intermediate tensors) is used in place. Inputs and outputs on a device that shares
// host memory are the caller's memory itself (CL_MEM_USE_HOST_PTR, synchronised by a map);
// elsewhere (a discrete GPU, or GPU_ZERO_COPY off) they are copied with non-blocking writes and one
// read at the end, each profiled as a Transfer record named for its Parameter or Result. Under the
// f16 hint the device's f32 tensors are f16 (value_table.hpp): a kernel converts each caller
// tensor into the request's own f16 buffer and each result back, also profiled as Transfers.
//
// infer() waits for the queue. start() (the SDK's start_async) enqueues the same commands and a
// marker whose OpenCL event callback ends the inference: no thread waits while the device works;
// the callback posts to the model's completion thread (completion_queue.hpp), which finishes.
#pragma once

#include "runtime/gpu_compiled_model.hpp"

#include <map>
#include <vector>

namespace mosaic::gpu_plugin {

class GpuInferRequest : public sdk::InferRequest {
public:
    explicit GpuInferRequest(const GpuCompiledModel& model);
    ~GpuInferRequest() override;

    void infer(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) override;
    bool start(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs, Done done) override;
    std::vector<sdk::ProfilingRecord> profiling() const override { return records_; }

private:
    // Binds and enqueues a whole inference; on failure waits for what was enqueued and rethrows.
    void enqueue(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs);
    // After the queue has run an inference: its profile, the caller's buffers let go.
    void finish();
    static void CL_CALLBACK on_event(cl_event event, cl_int status, void* self);
    void complete(cl_int status);
    // A failed OpenCL call of an inference as the error the host sees; the second rethrows the
    // current exception as that (other exceptions as they are).
    sdk::Error running_error(const cl::Error& error) const;
    [[noreturn]] void rethrow_as_device_error() const;
    void bind(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs);
    void run_executors();
    void collect_profile();
    void copy_results(const std::vector<TensorView>& outputs);
    void release_caller_buffers();
    // Enqueues `kernel` (data_movement.cl's float_to_real or real_to_float) over `count` elements.
    void convert(const char* kernel, const cl::Buffer& from, const cl::Buffer& to, int64_t count, const std::string& node);
    // A copy between the caller's memory and the device, for its profiling record; `event` is set
    // by the enqueue when profiling.
    cl::Event* transfer_event(const std::string& node, const char* exec_type);

    const GpuCompiledModel& model_;
    cl::CommandQueue queue_;
    std::vector<cl::Buffer> plan_buffers_;
    // Per caller value: the buffer over its caller's bytes for this inference (the caller's memory,
    // or `staging_` copied to and from it), and, where the device stores it as f16, `converted_`,
    // the buffer the kernels read and write.
    std::vector<cl::Buffer> host_side_, staging_, converted_;
    std::vector<cl::Buffer> result_staging_;  // per result copy from an f16 value, without zero-copy
    std::vector<cl::Buffer> buffers_;  // per value, for this inference
    std::map<std::string, cl::Kernel> io_kernels_;  // the conversions
    std::vector<std::map<std::string, cl::Kernel>> kernels_;  // per executor
    cl::Buffer scratch_;
    std::vector<ValueId> caller_values_;  // graph inputs and outputs
    std::vector<std::vector<cl::Event>> events_;  // per executor, when profiling
    struct TransferEvent {
        std::string node;       // the Parameter or Result
        const char* exec_type;  // write_buffer, read_buffer, float_to_real, real_to_float
        cl::Event event;
    };
    std::vector<TransferEvent> transfer_events_;  // of this inference, when profiling
    std::vector<sdk::ProfilingRecord> records_;
    Done done_;  // of the inference start() began
    bool bound_device_memory_ = false;  // a caller tensor of this inference is a device buffer
};

}  // namespace mosaic::gpu_plugin
