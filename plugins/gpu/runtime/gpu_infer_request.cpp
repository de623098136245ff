#include "runtime/gpu_infer_request.hpp"

#include "kernels/kernel_args.hpp"

#include <chrono>

namespace mosaic::gpu_plugin {

namespace {

// The host checks tensors against the model it compiled; checked again because a kernel must
// never run over a buffer of another size than its value.
void check_tensor(const char* what, size_t index, ElementType type, const Shape& shape, const Value& v) {
    if (type != v.type || shape != v.shape)
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, std::string(what) + " " + std::to_string(index) + " is " +
                                                            to_string(type) + " " + to_string(shape) + ", the model expects " +
                                                            to_string(v.type) + " " + to_string(v.shape));
}

// A caller's tensor in the device's own memory (a buffer of allocate_buffer): the kernels use it
// as it is. The SDK passed it only because takes_memory_of accepted its device; its context and size
// are checked here all the same, since a kernel must not run over another buffer.
cl::Buffer caller_device_buffer(const GpuCompiledModel& model, void* data, size_t bytes, const char* what, size_t index) {
    cl_mem handle = static_cast<cl_mem>(data);
    size_t size = 0;
    if (model.engine().owns(handle)) clGetMemObjectInfo(handle, CL_MEM_SIZE, sizeof(size), &size, nullptr);
    if (size < bytes)
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, std::string(what) + " " + std::to_string(index) + " is not a buffer of " +
                                                            model.device_label() + " holding " + std::to_string(bytes) + " bytes");
    return cl::Buffer(handle, /*retainObject=*/true);
}

sdk::Error device_error(const GpuCompiledModel& model, const std::string& during, const cl::Error& e) {
    return sdk::Error(MOSAIC_ERROR_DEVICE, model.device_label() + " ('" + model.engine().info().name + "'): " + during +
                                               " failed: " + e.what() + " returned " + cl_status_name(e.err()));
}

}  // namespace

GpuInferRequest::GpuInferRequest(const GpuCompiledModel& model)
    : model_(model),
      queue_(model.engine().make_queue(model.config().perf_count)),
      buffers_(model.values().size()),
      kernels_(model.executors().size()),
      events_(model.executors().size()) {
    const ValueTable& values = model.values();
    const MemoryPlan& plan = model.memory_plan();
    const cl::Context& context = model.engine().context();
    for (size_t size : plan.buffer_sizes) plan_buffers_.emplace_back(context, CL_MEM_READ_WRITE, size);
    if (model.scratch_bytes()) scratch_ = cl::Buffer(context, CL_MEM_READ_WRITE, model.scratch_bytes());
    host_side_.resize(values.size());
    staging_.resize(values.size());
    converted_.resize(values.size());
    for (ValueId v = 0; v < values.size(); ++v) {
        const Value& value = values[v];
        if (value.is_constant()) buffers_[v] = model.constant_buffer(v);
        if (plan.buffer_of[v] != MemoryPlan::kNoBuffer) buffers_[v] = plan_buffers_[plan.buffer_of[v]];
        if (value.kind == Value::Kind::input || value.kind == Value::Kind::output) {
            caller_values_.push_back(v);
            if (!value.byte_size()) continue;
            // Without shared memory, the caller's tensors are staged through buffers of the request.
            if (!model.zero_copy()) staging_[v] = cl::Buffer(context, CL_MEM_READ_WRITE, value.byte_size());
            if (value.narrowed()) converted_[v] = cl::Buffer(context, CL_MEM_READ_WRITE, value.device_bytes());
        }
    }
    for (const ResultCopy& copy : values.result_copies()) {
        const Value& from = values[copy.from];
        result_staging_.emplace_back();
        if (from.narrowed() && !model.zero_copy() && from.byte_size())
            result_staging_.back() = cl::Buffer(context, CL_MEM_READ_WRITE, from.byte_size());
    }
    model.engine().reserve(model.request_bytes(), model.config().memory_budget(model.engine().info()),
                           "a request (its intermediate tensors)");
}

GpuInferRequest::~GpuInferRequest() { model_.engine().release(model_.request_bytes()); }

void GpuInferRequest::bind(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) {
    const ValueTable& values = model_.values();
    if (inputs.size() != values.graph_input_count() || outputs.size() != values.graph_output_count())
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT,
                         "got " + std::to_string(inputs.size()) + " inputs and " + std::to_string(outputs.size()) +
                             " outputs, the model has " + std::to_string(values.graph_input_count()) + " and " +
                             std::to_string(values.graph_output_count()));
    const bool shared = model_.zero_copy();
    const cl::Context& context = model_.engine().context();
    transfer_events_.clear();
    for (ValueId v : caller_values_) {
        const Value& value = values[v];
        const bool is_input = value.kind == Value::Kind::input;
        const ElementType type = is_input ? inputs[value.io_index].type : outputs[value.io_index].type;
        const Shape& shape = is_input ? inputs[value.io_index].shape : outputs[value.io_index].shape;
        check_tensor(is_input ? "input" : "output", value.io_index, type, shape, value);
        if (value.byte_size() == 0) continue;
        void* data = is_input ? const_cast<void*>(inputs[value.io_index].data) : outputs[value.io_index].data;
        const std::string& name = is_input ? values.input_name(value.io_index) : values.output_name(value.io_index);
        const bool on_device = (is_input ? inputs[value.io_index].memory_device : outputs[value.io_index].memory_device) != nullptr;
        if (on_device) {
            host_side_[v] = caller_device_buffer(model_, data, value.byte_size(), is_input ? "input" : "output", value.io_index);
            bound_device_memory_ = true;
        } else if (shared) {
            host_side_[v] = cl::Buffer(context, (is_input ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE) | CL_MEM_USE_HOST_PTR,
                                       value.byte_size(), data);
        } else {
            host_side_[v] = staging_[v];
            if (is_input)
                queue_.enqueueWriteBuffer(host_side_[v], CL_FALSE, 0, value.byte_size(), data, nullptr,
                                          transfer_event(name, "write_buffer"));
        }
        buffers_[v] = value.narrowed() ? converted_[v] : host_side_[v];
        if (is_input && value.narrowed()) convert("float_to_real", host_side_[v], buffers_[v], shape_size(value.shape), name);
    }
    // Views read their source's buffer, which may just have been bound.
    for (ValueId v = 0; v < values.size(); ++v)
        if (values[v].alias_of != kNoValue) buffers_[v] = buffers_[values[v].alias_of];
}

void GpuInferRequest::convert(const char* kernel, const cl::Buffer& from, const cl::Buffer& to, int64_t count,
                              const std::string& node) {
    auto it = io_kernels_.find(kernel);
    if (it == io_kernels_.end()) it = io_kernels_.emplace(kernel, cl::Kernel(model_.program(), kernel)).first;
    set_args(it->second, from, to);
    queue_.enqueueNDRangeKernel(it->second, cl::NullRange, items(count), cl::NullRange, nullptr, transfer_event(node, kernel));
}

cl::Event* GpuInferRequest::transfer_event(const std::string& node, const char* exec_type) {
    if (!model_.config().perf_count) return nullptr;
    transfer_events_.push_back({node, exec_type, cl::Event()});
    return &transfer_events_.back().event;
}

void GpuInferRequest::run_executors() {
    const auto& executors = model_.executors();
    const bool profiling = model_.config().perf_count;
    for (size_t e = 0; e < executors.size(); ++e) {
        events_[e].clear();
        ExecContext ctx(queue_, model_.program(), buffers_, kernels_[e], profiling ? &events_[e] : nullptr, &scratch_);
        try {
            executors[e]->enqueue(ctx);
        } catch (const cl::Error& error) {
            throw device_error(model_, "node '" + executors[e]->name() + "' (" + executors[e]->type() + ", " +
                                           executors[e]->exec_type() + ")",
                               error);
        }
    }
}

void GpuInferRequest::collect_profile() {
    records_.clear();
    if (!model_.config().perf_count) return;
    const auto& executors = model_.executors();
    for (size_t e = 0; e < executors.size(); ++e) {
        uint64_t ns = 0;
        for (const cl::Event& ev : events_[e]) {
            if (!ev()) continue;
            ns += ev.getProfilingInfo<CL_PROFILING_COMMAND_END>() - ev.getProfilingInfo<CL_PROFILING_COMMAND_START>();
        }
        // Device time: the host thread only enqueues, so cpu time is what the device ran.
        records_.push_back({executors[e]->name(), executors[e]->type(), executors[e]->exec_type(),
                            MOSAIC_PROFILING_EXECUTED, ns / 1000, 0});
    }
    for (const TransferEvent& t : transfer_events_) {
        const uint64_t ns = t.event.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                            t.event.getProfilingInfo<CL_PROFILING_COMMAND_START>();
        records_.push_back({t.node, "Transfer", t.exec_type, MOSAIC_PROFILING_EXECUTED, ns / 1000, 0});
    }
}

void GpuInferRequest::copy_results(const std::vector<TensorView>& outputs) {
    const ValueTable& values = model_.values();
    const bool shared = model_.zero_copy();
    const auto& copies = values.result_copies();
    for (size_t i = 0; i < copies.size(); ++i) {
        const ResultCopy& copy = copies[i];
        const Value& from = values[copy.from];
        const size_t bytes = from.byte_size();
        if (!bytes) continue;
        const cl::Buffer& source = buffers_[values.storage_of(copy.from)];
        void* data = outputs[copy.output].data;
        const std::string& name = values.output_name(copy.output);
        if (outputs[copy.output].memory_device) {  // the caller's device buffer: no trip to the host
            cl::Buffer target = caller_device_buffer(model_, data, bytes, "output", copy.output);
            if (from.narrowed()) convert("real_to_float", source, target, shape_size(from.shape), name);
            else queue_.enqueueCopyBuffer(source, target, 0, 0, bytes);
        } else if (shared) {
            cl::Buffer target(model_.engine().context(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, data);
            if (from.narrowed()) convert("real_to_float", source, target, shape_size(from.shape), name);
            else queue_.enqueueCopyBuffer(source, target, 0, 0, bytes);
            void* mapped = queue_.enqueueMapBuffer(target, CL_FALSE, CL_MAP_READ, 0, bytes);
            queue_.enqueueUnmapMemObject(target, mapped);
        } else if (from.narrowed()) {
            convert("real_to_float", source, result_staging_[i], shape_size(from.shape), name);
            queue_.enqueueReadBuffer(result_staging_[i], CL_FALSE, 0, bytes, data, nullptr, transfer_event(name, "read_buffer"));
        } else {
            queue_.enqueueReadBuffer(source, CL_FALSE, 0, bytes, data, nullptr, transfer_event(name, "read_buffer"));
        }
    }
    for (ValueId v : caller_values_) {
        const Value& value = values[v];
        if (value.kind != Value::Kind::output || value.byte_size() == 0) continue;
        const std::string& name = values.output_name(value.io_index);
        if (value.narrowed()) convert("real_to_float", buffers_[v], host_side_[v], shape_size(value.shape), name);
        if (outputs[value.io_index].memory_device) continue;  // written in the caller's device buffer
        if (shared) {
            // Mapping is what makes the device's writes visible in the caller's memory (once the
            // queue has run it: nothing here waits).
            void* mapped = queue_.enqueueMapBuffer(host_side_[v], CL_FALSE, CL_MAP_READ, 0, value.byte_size());
            queue_.enqueueUnmapMemObject(host_side_[v], mapped);
        } else {
            queue_.enqueueReadBuffer(host_side_[v], CL_FALSE, 0, value.byte_size(), outputs[value.io_index].data, nullptr,
                                     transfer_event(name, "read_buffer"));
        }
    }
}

void GpuInferRequest::enqueue(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) {
    records_.clear();
    bool enqueued = false;
    try {
        bind(inputs, outputs);
        enqueued = true;
        run_executors();
        copy_results(outputs);
    } catch (...) {
        // Nothing may stay in flight over the caller's memory once the call returns.
        if (enqueued) try { queue_.finish(); } catch (const cl::Error&) {}
        release_caller_buffers();
        rethrow_as_device_error();
    }
}

void GpuInferRequest::finish() {
    try {
        collect_profile();
    } catch (...) {
        release_caller_buffers();
        rethrow_as_device_error();
    }
    release_caller_buffers();
}

sdk::Error GpuInferRequest::running_error(const cl::Error& error) const {
    return device_error(model_, "running model '" + model_.property("NETWORK_NAME").get<std::string>() + "'", error);
}

void GpuInferRequest::rethrow_as_device_error() const {
    try {
        throw;
    } catch (const cl::Error& error) {
        throw running_error(error);
    }
}

void GpuInferRequest::infer(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) {
    enqueue(inputs, outputs);
    try {
        queue_.finish();
    } catch (...) {
        release_caller_buffers();
        rethrow_as_device_error();
    }
    finish();
}

bool GpuInferRequest::start(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs,
                            Done done) {
    model_.completions().start();
    enqueue(inputs, outputs);
    done_ = std::move(done);
    try {
        cl::Event marker;
        queue_.enqueueMarkerWithWaitList(nullptr, &marker);
        marker.setCallback(CL_COMPLETE, &GpuInferRequest::on_event, this);
        queue_.flush();
    } catch (...) {
        done_ = nullptr;
        try { queue_.finish(); } catch (const cl::Error&) {}
        release_caller_buffers();
        rethrow_as_device_error();
    }
    return true;
}

void CL_CALLBACK GpuInferRequest::on_event(cl_event, cl_int status, void* self) {
    // A driver thread: only hand over (no blocking OpenCL call, no host callback here).
    auto* request = static_cast<GpuInferRequest*>(self);
    request->model_.completions().post([request, status] { request->complete(status); });
}

void GpuInferRequest::complete(cl_int status) {
    std::exception_ptr error;
    try {
        if (status < 0) {
            release_caller_buffers();
            throw running_error(cl::Error(status, "the inference's commands"));
        }
        finish();
    } catch (...) {
        error = std::current_exception();
    }
    Done done = std::move(done_);
    done_ = nullptr;
    done(error);  // the request may be started again from here
}

void GpuInferRequest::release_caller_buffers() {
    if (!model_.zero_copy() && !bound_device_memory_) return;
    bound_device_memory_ = false;
    for (ValueId v : caller_values_) buffers_[v] = host_side_[v] = cl::Buffer();
    for (ValueId v = 0; v < buffers_.size(); ++v)
        if (model_.values()[v].alias_of != kNoValue) buffers_[v] = cl::Buffer();
}

}  // namespace mosaic::gpu_plugin
