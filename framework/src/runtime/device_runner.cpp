// The bottom of every runner stack: a plugin's infer request on a compiled model of static shapes.
// Outputs the caller leaves empty go to buffers of this runner, allocated at first need and
// reused. A plugin without start_async runs asynchronously on a worker thread of the host's
// (sync_only_request.hpp).
#include "runtime/runners.hpp"

#include "runtime/compiled_model_impl.hpp"
#include "runtime/remote_tensor.hpp"
#include "runtime/sync_only_request.hpp"

#include <mosaic/sdk/status.hpp>

#include <stdexcept>

namespace mosaic {

namespace {

class DeviceRunner final : public Runner {
public:
    explicit DeviceRunner(std::shared_ptr<CompiledModel::Impl> model) : model_(std::move(model)) {
        device().check(device().api().create_request(model_->raw(), &request_), "creating an infer request");
        own_outputs_.resize(model_->graph_outputs().size());
    }

    ~DeviceRunner() override {
        sync_only_.reset();  // joins its worker, which uses the plugin's request
        device().api().release_request(request_);
    }

    void run(RunTensors& tensors) override {
        describe(tensors);
        mosaic_status* status = device().api().infer(request_, in_desc_.data(), in_desc_.size(), out_desc_.data(),
                                                     out_desc_.size());
        if (status) throw failure(status);
    }

    void start(RunTensors& tensors, Done done) noexcept override {
        done_ = std::move(done);
        try {
            describe(tensors);
            mosaic_completion_fn completion = [](void* self, mosaic_status* s) {
                static_cast<DeviceRunner*>(self)->complete(s);
            };
            mosaic_status* status = nullptr;
            if (device().library().has_start_async()) {
                status = device().api().start_async(request_, in_desc_.data(), in_desc_.size(), out_desc_.data(),
                                                    out_desc_.size(), completion, this);
            } else {
                if (!sync_only_) sync_only_ = std::make_unique<SyncOnlyRequest>(device().api(), request_);
                status = sync_only_->start(in_desc_.data(), in_desc_.size(), out_desc_.data(), out_desc_.size(),
                                           completion, this);
            }
            if (status) complete(status);
        } catch (...) {
            end(std::current_exception());
        }
    }

    std::vector<ProfilingInfo> profiling() const override {
        std::vector<ProfilingInfo> out;
        mosaic_profiling_sink sink{&out, [](void* ctx, const mosaic_profiling_record* r) {
                                       ProfilingInfo p;
                                       p.node_name = r->node_name ? r->node_name : "";
                                       p.node_type = r->node_type ? r->node_type : "";
                                       p.exec_type = r->exec_type ? r->exec_type : "";
                                       p.status = r->status == MOSAIC_PROFILING_NOT_RUN ? ProfilingInfo::Status::not_run
                                                  : r->status == MOSAIC_PROFILING_OPTIMIZED_OUT
                                                      ? ProfilingInfo::Status::optimized_out
                                                      : ProfilingInfo::Status::executed;
                                       p.real_time = std::chrono::microseconds(r->real_time_us);
                                       p.cpu_time = std::chrono::microseconds(r->cpu_time_us);
                                       static_cast<std::vector<ProfilingInfo>*>(ctx)->push_back(std::move(p));
                                   }};
        device().check(device().api().profiling(request_, sink), "reading profiling records");
        return out;
    }

private:
    const DeviceHandle& device() const { return model_->device(); }

    // The descriptors of this inference's tensors; empty outputs become this runner's buffers.
    void describe(RunTensors& tensors) {
        in_desc_.clear();
        out_desc_.clear();
        bool device_memory = false;
        for (size_t i = 0; i < tensors.inputs.size(); ++i) {
            Tensor& t = tensors.inputs[i];
            // What the parts above hand on has been checked; a plugin must never read past a buffer all the same.
            const PortDesc& port = model_->graph_inputs()[i];
            if (t.get_element_type() != port.type || t.get_shape() != port.shape)
                throw std::logic_error("input '" + port.name + "' of the model compiled on '" + device().name() +
                                       "' is " + to_string(port.type) + " " + to_string(port.shape) +
                                       " but was handed " + to_string(t.get_element_type()) + " " +
                                       to_string(t.get_shape()));
            in_desc_.push_back(TensorAccess::descriptor(t));
            device_memory |= t.is_remote();
        }
        for (size_t i = 0; i < tensors.outputs.size(); ++i) {
            Tensor& t = tensors.outputs[i];
            if (!t) {
                if (!own_outputs_[i]) {
                    const PortDesc& port = model_->graph_outputs()[i];
                    own_outputs_[i] = Tensor(port.type, port.shape);
                }
                t = own_outputs_[i];
            }
            out_desc_.push_back(TensorAccess::descriptor(t));
            device_memory |= t.is_remote();
        }
        // A device tensor reaches only a request of its own device, which reads it where it is.
        if (device_memory)
            if (mosaic_status* status = check_request_memory(device(), in_desc_.data(), in_desc_.size(),
                                                             out_desc_.data(), out_desc_.size()))
                throw failure(status);
    }

    std::runtime_error failure(mosaic_status* status) const {
        std::string message = status->message ? status->message : "(no message)";
        status->release(status);
        return std::runtime_error("inference on device '" + device().name() + "' failed: " + message);
    }

    void complete(mosaic_status* status) noexcept {
        std::exception_ptr error;
        if (status) {
            try {
                throw failure(status);
            } catch (...) {
                error = std::current_exception();
            }
        }
        end(std::move(error));
    }

    void end(std::exception_ptr error) noexcept { Runner::end(done_, std::move(error)); }

    std::shared_ptr<CompiledModel::Impl> model_;
    mosaic_infer_request* request_ = nullptr;
    std::vector<Tensor> own_outputs_;
    std::vector<mosaic_tensor> in_desc_, out_desc_;
    Done done_;
    std::unique_ptr<SyncOnlyRequest> sync_only_;  // for a plugin without start_async, made at first need
};

}  // namespace

std::unique_ptr<Runner> make_device_runner(std::shared_ptr<CompiledModel::Impl> model) {
    return std::make_unique<DeviceRunner>(std::move(model));
}

}  // namespace mosaic
