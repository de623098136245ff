#include "host_client.hpp"

namespace mosaic::hetero {

std::string base_device_name(const std::string& device) { return device.substr(0, device.find('.')); }

mosaic_status* HostRequest::infer(const std::vector<mosaic_tensor>& inputs, const std::vector<mosaic_tensor>& outputs) {
    return host_->infer(host_->host_context, request_, inputs.data(), inputs.size(), outputs.data(), outputs.size());
}

mosaic_status* HostRequest::start(const std::vector<mosaic_tensor>& inputs, const std::vector<mosaic_tensor>& outputs,
                                  mosaic_completion_fn done, void* user_data) {
    return host_->start_async(host_->host_context, request_, inputs.data(), inputs.size(), outputs.data(),
                              outputs.size(), done, user_data);
}

std::vector<sdk::ProfilingRecord> HostRequest::profiling() const {
    std::vector<sdk::ProfilingRecord> records;
    mosaic_profiling_sink sink{&records, [](void* ctx, const mosaic_profiling_record* r) {
                                   static_cast<std::vector<sdk::ProfilingRecord>*>(ctx)->push_back(
                                       {r->node_name ? r->node_name : "", r->node_type ? r->node_type : "",
                                        r->exec_type ? r->exec_type : "", r->status, r->real_time_us,
                                        r->cpu_time_us});
                               }};
    sdk::check(host_->request_profiling(host_->host_context, request_, sink), "reading a subgraph's profiling records");
    return records;
}

std::unique_ptr<HostRequest> HostCompiled::create_request() const {
    mosaic_host_request* r = nullptr;
    sdk::check(host_->create_request(host_->host_context, compiled_, &r), "creating a subgraph's infer request");
    return std::make_unique<HostRequest>(host_, r);
}

nlohmann::json HostCompiled::property(const std::string& key) const {
    std::string text;
    sdk::check(host_->compiled_property(host_->host_context, compiled_, key.c_str(), sdk::string_sink(text)));
    return nlohmann::json::parse(text);
}

bool HostCompiled::export_blob(std::string& blob) const {
    mosaic_status* status = host_->export_compiled(host_->host_context, compiled_, sdk::string_sink(blob));
    if (status && status->code == MOSAIC_ERROR_NOT_SUPPORTED) {
        status->release(status);
        blob.clear();
        return false;
    }
    sdk::check(status, "exporting a subgraph");
    return true;
}

mosaic_copy_path HostMemory::copy_path(const std::string& from, const std::string& to) const {
    return host_->copy_path(host_->host_context, from.empty() ? nullptr : from.c_str(), to.empty() ? nullptr : to.c_str());
}

bool HostMemory::info(const std::string& device, mosaic_memory_info& out) const {
    if (!available()) return false;
    out = mosaic_memory_info{};
    out.struct_size = sizeof(out);
    mosaic_status* status = host_->memory_info(host_->host_context, device.c_str(), &out);
    if (status) {
        status->release(status);
        return false;
    }
    return true;
}

bool HostMemory::shares_host_memory(const std::string& device) const {
    mosaic_memory_info figures{};
    // No figures: a device of its own memory, as far as HETERO knows.
    return info(device, figures) && figures.shares_host_memory != 0;
}

void* HostMemory::allocate(const std::string& device, size_t bytes) const {
    void* buffer = nullptr;
    sdk::check(host_->allocate_buffer(host_->host_context, device.c_str(), bytes, &buffer),
               "allocating " + std::to_string(bytes) + " bytes on " + device);
    return buffer;
}

void HostMemory::release(const std::string& device, void* buffer) const {
    host_->release_buffer(host_->host_context, device.c_str(), buffer);
}

void HostMemory::copy(const mosaic_tensor& src, const mosaic_tensor& dst) const {
    sdk::check(host_->copy(host_->host_context, &src, &dst, nullptr, nullptr),
               std::string("copying a tensor from ") + (src.memory_device ? src.memory_device : "host memory") + " to " +
                   (dst.memory_device ? dst.memory_device : "host memory"));
}

HostClient::HostClient(const mosaic_host_api* host) : host_(host) {
    if (!host_ || !MOSAIC_HAS_MEMBER(mosaic_host_api, host_, import_on_device))
        throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED,
                         "HETERO needs host services of plugin ABI 1.2 or newer (estimate_cost, export_compiled, "
                         "import_on_device); this host is older");
}

std::vector<sdk::Device::Support> HostClient::query(const std::string& device, mosaic_graph_view graph,
                                                    const nlohmann::json& properties) const {
    std::vector<sdk::Device::Support> result(graph.api->node_count(graph.graph), {false, "the device did not answer"});
    mosaic_query_sink sink{&result, [](void* ctx, size_t node, int supported, const char* detail) {
                               auto& r = *static_cast<std::vector<sdk::Device::Support>*>(ctx);
                               if (node < r.size()) r[node] = {supported != 0, detail ? detail : ""};
                           }};
    sdk::check(host_->query_device(host_->host_context, device.c_str(), graph, properties.dump().c_str(), sink));
    return result;
}

std::shared_ptr<HostCompiled> HostClient::compile(const std::string& device, mosaic_graph_view graph,
                                                  const nlohmann::json& properties) const {
    mosaic_host_compiled* compiled = nullptr;
    sdk::check(host_->compile_on_device(host_->host_context, device.c_str(), graph, properties.dump().c_str(),
                                        &compiled));
    return std::make_shared<HostCompiled>(host_, compiled);
}

std::shared_ptr<HostCompiled> HostClient::import_blob(const std::string& device, const void* blob, size_t size,
                                                      const nlohmann::json& properties) const {
    mosaic_host_compiled* compiled = nullptr;
    sdk::check(host_->import_on_device(host_->host_context, device.c_str(), blob, size, properties.dump().c_str(),
                                       &compiled));
    return std::make_shared<HostCompiled>(host_, compiled);
}

nlohmann::json HostClient::device_properties(const std::string& device) const {
    std::string text;
    sdk::check(host_->device_properties(host_->host_context, base_device_name(device).c_str(), sdk::string_sink(text)));
    return nlohmann::json::parse(text);
}

sdk::OpCost HostClient::estimate_cost(const std::string& device, mosaic_graph_view graph, size_t node) const {
    mosaic_op_cost cost{};
    cost.struct_size = sizeof(cost);
    sdk::check(host_->estimate_cost(host_->host_context, device.c_str(), graph, node, &cost),
               "estimating costs on device " + device);
    return {cost.compute_us, cost.bytes_per_us};
}

}  // namespace mosaic::hetero
