// One step of a compiled model: an OpenCL kernel (or a few, or a CLBlast call) for one op and the
// ops fused into it. A compiled model is a list of executors in topological order, shared by every
// infer request; enqueue() is const and everything that changes per inference lives in the
// request: its command queue, its buffers and its kernel objects (an OpenCL kernel's arguments are
// state, so each request sets its own).
#pragma once

#include "opencl/cl.hpp"
#include "runtime/value_table.hpp"

#include <mosaic/sdk/status.hpp>

#include <map>
#include <string>
#include <vector>

namespace mosaic::gpu_plugin {

struct Epilogue;

class ExecContext {
public:
    ExecContext(cl::CommandQueue& queue, const cl::Program& program, const std::vector<cl::Buffer>& buffers,
                std::map<std::string, cl::Kernel>& kernels, std::vector<cl::Event>* events, cl::Buffer* scratch)
        : queue_(queue), program_(program), buffers_(buffers), kernels_(kernels), events_(events), scratch_(scratch) {}

    cl::CommandQueue& queue() const { return queue_; }
    // The device buffer holding value `v` in this inference.
    const cl::Buffer& operator[](ValueId v) const { return buffers_.at(v); }
    // The request's scratch buffer (at least the executor's scratch_bytes()).
    const cl::Buffer& scratch() const { return *scratch_; }
    // This request's instance of the kernel `name`, made on first use.
    cl::Kernel& kernel(const std::string& name) const {
        auto it = kernels_.find(name);
        if (it == kernels_.end()) it = kernels_.emplace(name, cl::Kernel(program_, name.c_str())).first;
        return it->second;
    }
    // Where the executor's commands put their events when profiling is on, else null.
    cl::Event* next_event() const {
        if (!events_) return nullptr;
        events_->emplace_back();
        return &events_->back();
    }
    // Enqueues `k` over `global` work items (a local size the driver picks).
    void launch(cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local = cl::NullRange) const {
        queue_.enqueueNDRangeKernel(k, cl::NullRange, global, local, nullptr, next_event());
    }

private:
    cl::CommandQueue& queue_;
    const cl::Program& program_;
    const std::vector<cl::Buffer>& buffers_;
    std::map<std::string, cl::Kernel>& kernels_;
    std::vector<cl::Event>* events_;
    cl::Buffer* scratch_;
};

// Sets the arguments of `k` in order, from argument `first` on; returns the index after the last.
template <typename... Args>
cl_uint set_args_from(cl::Kernel& k, cl_uint first, const Args&... args) {
    (k.setArg(first++, args), ...);
    return first;
}
template <typename... Args>
cl_uint set_args(cl::Kernel& k, const Args&... args) {
    return set_args_from(k, 0, args...);
}

class Executor {
public:
    // `name`: the friendly name of the last op it runs (what profiling reports); `type`: its main op.
    Executor(std::string name, std::string type, std::vector<ValueId> inputs, std::vector<ValueId> outputs)
        : name_(std::move(name)), type_(std::move(type)), inputs_(std::move(inputs)), outputs_(std::move(outputs)) {}
    virtual ~Executor() = default;

    virtual void enqueue(const ExecContext& ctx) const = 0;
    // The kernel that runs ("conv_direct", "clblast_gemm"...): profiling's execType.
    virtual std::string exec_type() const = 0;
    virtual size_t scratch_bytes() const { return 0; }

    const std::string& name() const { return name_; }
    const std::string& type() const { return type_; }
    const std::vector<ValueId>& inputs() const { return inputs_; }
    const std::vector<ValueId>& outputs() const { return outputs_; }

protected:
    // For executors that fuse the ops after their main op: they write, and are named after, the last.
    void fused_into(std::string name, ValueId output) {
        name_ = std::move(name);
        outputs_ = {output};
    }
    void add_input(ValueId v) { inputs_.push_back(v); }
    // Takes on what an epilogue fused (fusion.hpp): named after its last op and writing its result
    // when it fused any, reading its bias and residual. Defined in fusion.cpp.
    void take_epilogue(const sdk::GraphView& graph, const Epilogue& e);

private:
    std::string name_, type_;
    std::vector<ValueId> inputs_, outputs_;
};

}  // namespace mosaic::gpu_plugin
