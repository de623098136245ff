// CompiledModel and InferRequest internals: a plugin's compiled model and requests, with the
// host-side tensors, shape/type checks and asynchronous completion.
#pragma once

#include <mosaic/compiled_model.hpp>
#include <mosaic/sdk/plugin.hpp>

#include "device_handle.hpp"
#include "graph_view.hpp"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace mosaic {

class CompiledModel::Impl {
public:
    // `graph` may be null for an imported model; it keeps constants alive for the plugin.
    Impl(std::shared_ptr<DeviceHandle> device, std::unique_ptr<HostGraph> graph, mosaic_compiled_model* compiled,
         std::string device_string, std::vector<PortDesc> inputs = {}, std::vector<PortDesc> outputs = {});
    ~Impl();

    static CompiledModel import_from(std::shared_ptr<DeviceHandle> device, std::istream& blob,
                                     const std::string& device_string, const nlohmann::json& properties);

    const DeviceHandle& device() const { return *device_; }
    mosaic_compiled_model* raw() const { return compiled_; }
    const std::vector<PortDesc>& inputs() const { return inputs_; }
    const std::vector<PortDesc>& outputs() const { return outputs_; }
    const std::string& device_string() const { return device_string_; }
    PropertyValue property(const std::string& key) const;
    void export_to(std::ostream& out) const;

private:
    std::shared_ptr<DeviceHandle> device_;
    std::unique_ptr<HostGraph> graph_;
    mosaic_compiled_model* compiled_ = nullptr;
    std::string device_string_;
    std::vector<PortDesc> inputs_, outputs_;
};

class InferRequest::Impl : public std::enable_shared_from_this<InferRequest::Impl> {
public:
    explicit Impl(std::shared_ptr<CompiledModel::Impl> model);
    ~Impl();

    void set_tensor(size_t index, bool is_input, const Tensor& tensor);
    Tensor& tensor(size_t index, bool is_input);
    // (index, is_input) of a name; throws listing the names when unknown.
    std::pair<size_t, bool> find(const std::string& name) const;

    void infer();
    void start_async();
    bool wait_for(std::chrono::milliseconds timeout, bool forever);
    void set_callback(std::function<void(std::exception_ptr)> callback);
    std::vector<ProfilingInfo> profiling() const;

private:
    void build_descriptors();
    void complete(mosaic_status* status) noexcept;
    void check_idle(const char* what) const;

    std::shared_ptr<CompiledModel::Impl> model_;
    mosaic_infer_request* request_ = nullptr;
    std::vector<Tensor> inputs_, outputs_;
    std::vector<mosaic_tensor> in_desc_, out_desc_;

    mutable std::mutex mutex_;
    std::condition_variable done_cv_;
    bool running_ = false;
    int callbacks_running_ = 0;  // completion callbacks in progress (wait() waits for them too)
    std::exception_ptr error_;
    std::function<void(std::exception_ptr)> callback_;
    std::unique_ptr<sdk::detail::RequestHolder> fallback_;  // async for plugins without start_async
};

}  // namespace mosaic
