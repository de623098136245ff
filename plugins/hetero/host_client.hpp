// HETERO's side of the host services: C++ wrappers with RAII handles over the host table's
// orchestration members (query, compile, import/export, requests on other devices).
#pragma once

#include <mosaic/sdk/cost_model.hpp>
#include <mosaic/sdk/plugin.hpp>

#include <memory>
#include <string>
#include <vector>

namespace mosaic::hetero {

// "REFERENCE.1" -> "REFERENCE": the registry entry behind a device id.
std::string base_device_name(const std::string& device);

class HostRequest {
public:
    HostRequest(const mosaic_host_api* host, mosaic_host_request* request) : host_(host), request_(request) {}
    ~HostRequest() { host_->release_request(host_->host_context, request_); }
    HostRequest(const HostRequest&) = delete;
    HostRequest& operator=(const HostRequest&) = delete;

    // Returns the host's status (ownership passes to the caller), null when the inference succeeded.
    mosaic_status* infer(const std::vector<mosaic_tensor>& inputs, const std::vector<mosaic_tensor>& outputs);
    // Returns the host's status (ownership passes to the caller); `done` runs once unless this fails.
    mosaic_status* start(const std::vector<mosaic_tensor>& inputs, const std::vector<mosaic_tensor>& outputs,
                         mosaic_completion_fn done, void* user_data);
    std::vector<sdk::ProfilingRecord> profiling() const;

private:
    const mosaic_host_api* host_;
    mosaic_host_request* request_;
};

class HostCompiled {
public:
    HostCompiled(const mosaic_host_api* host, mosaic_host_compiled* compiled) : host_(host), compiled_(compiled) {}
    ~HostCompiled() { host_->release_compiled(host_->host_context, compiled_); }
    HostCompiled(const HostCompiled&) = delete;
    HostCompiled& operator=(const HostCompiled&) = delete;

    std::unique_ptr<HostRequest> create_request() const;
    nlohmann::json property(const std::string& key) const;
    // The device's export blob, or false when the device cannot export.
    bool export_blob(std::string& blob) const;

private:
    const mosaic_host_api* host_;
    mosaic_host_compiled* compiled_;
};

// Other devices' memory through the host (ABI 1.3): buffers, and copies between them and host
// memory. `available` is false on an older host, which then stages every crossing through host memory.
class HostMemory {
public:
    explicit HostMemory(const mosaic_host_api* host) : host_(host) {}
    bool available() const { return host_ && MOSAIC_HAS_MEMBER(mosaic_host_api, host_, copy); }
    // How bytes go from one device's memory to another's ("" for host memory).
    mosaic_copy_path copy_path(const std::string& from, const std::string& to) const;
    // Whether the device's memory is the host's (memory_info's shares_host_memory; false when it
    // does not say).
    bool shares_host_memory(const std::string& device) const;
    // The device's memory figures (memory_info); false when it reports none.
    bool info(const std::string& device, mosaic_memory_info& out) const;
    void* allocate(const std::string& device, size_t bytes) const;
    void release(const std::string& device, void* buffer) const;
    void copy(const mosaic_tensor& src, const mosaic_tensor& dst) const;

private:
    const mosaic_host_api* host_;
};

// A buffer in a device's memory, released with the object.
class DeviceBuffer {
public:
    DeviceBuffer(const HostMemory& memory, std::string device, size_t bytes)
        : memory_(memory), device_(std::move(device)), data_(memory.allocate(device_, bytes)) {}
    ~DeviceBuffer() { memory_.release(device_, data_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    const std::string& device() const { return device_; }
    void* data() const { return data_; }

private:
    HostMemory memory_;
    std::string device_;
    void* data_;
};

class HostClient {
public:
    explicit HostClient(const mosaic_host_api* host);
    const mosaic_host_api* api() const { return host_; }

    // Throws sdk::Error with the host's message (e.g. "device 'X' is not registered ...").
    std::vector<sdk::Device::Support> query(const std::string& device, mosaic_graph_view graph,
                                            const nlohmann::json& properties) const;
    std::shared_ptr<HostCompiled> compile(const std::string& device, mosaic_graph_view graph,
                                          const nlohmann::json& properties) const;
    std::shared_ptr<HostCompiled> import_blob(const std::string& device, const void* blob, size_t size,
                                              const nlohmann::json& properties) const;
    // Every property of the device with its value: the keys are what the device declares.
    nlohmann::json device_properties(const std::string& device) const;
    sdk::OpCost estimate_cost(const std::string& device, mosaic_graph_view graph, size_t node) const;

private:
    const mosaic_host_api* host_;
};

}  // namespace mosaic::hetero
