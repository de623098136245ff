#include "runtime/device_handle.hpp"

#include "runtime/core_impl.hpp"
#include "registry/plugin_json_checks.hpp"

#include <mosaic/sdk/status.hpp>

#include <cstdint>
#include <stdexcept>

namespace mosaic {

DeviceHandle::DeviceHandle(std::shared_ptr<PluginLibrary> library, std::shared_ptr<const HostContext> host,
                           const std::string& name, const nlohmann::json& properties)
    : library_(std::move(library)), host_(std::move(host)), name_(name) {
    check(library_->create_device(&host_->table, name, properties.dump(), &device_),
          "creating the device from '" + library_->path() + "'");
}

DeviceHandle::~DeviceHandle() {
    if (device_) api().release_device(device_);
}

void DeviceHandle::check(mosaic_status* status, const std::string& context) const {
    if (!status) return;
    std::string message = status->message ? status->message : "(no message)";
    const mosaic_status_code code = status->code;
    status->release(status);
    // The code travels on: an orchestrator tells a device that failed (MOSAIC_ERROR_DEVICE, e.g. an
    // isolated plugin's process that died) from one that refused.
    throw sdk::Error(code, context + " on device '" + name_ + "': " + message);
}

bool DeviceHandle::memory_info(const std::string& id, mosaic_memory_info& out) const {
    if (!library_->has_memory_info()) return false;
    out = mosaic_memory_info{};
    out.struct_size = sizeof(out);
    mosaic_status* status = api().memory_info(device_, id.c_str(), &out);
    if (status && status->code == MOSAIC_ERROR_NOT_SUPPORTED) {
        status->release(status);
        return false;
    }
    check(status, "reading the memory of instance '" + id + "'");
    return true;
}

bool DeviceHandle::has_buffers(const std::string& id) const {
    return library_->has_buffers() && api().can_copy(device_, id.c_str(), nullptr) != 0;
}

void* DeviceHandle::allocate_buffer(const std::string& id, size_t bytes) const {
    if (!has_buffers(id))
        throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, "device '" + name_ + "' has no memory of its own (its tensors are "
                                                     "host memory; the plugin offers no allocate_buffer)");
    void* buffer = nullptr;
    check(api().allocate_buffer(device_, id.c_str(), bytes, &buffer),
          "allocating a buffer of " + std::to_string(bytes) + " bytes");
    if (!buffer) throw sdk::Error(MOSAIC_ERROR_GENERAL, "plugin bug: device '" + name_ + "' allocated a null buffer");
    return buffer;
}

void DeviceHandle::release_buffer(const std::string& id, void* buffer) const {
    if (buffer && library_->has_buffers()) api().release_buffer(device_, id.c_str(), buffer);
}

bool DeviceHandle::can_copy(const std::string& id, const char* other_memory_device) const {
    return library_->has_buffers() && api().can_copy(device_, id.c_str(), other_memory_device) != 0;
}

void DeviceHandle::copy(const std::string& id, const mosaic_tensor& src, const mosaic_tensor& dst) const {
    check(api().copy(device_, id.c_str(), &src, &dst, nullptr, nullptr), "copying " + std::to_string(src.byte_size) + " bytes");
}

PluginSender DeviceHandle::sender() const { return {library_->path(), name_}; }

std::vector<std::string> DeviceHandle::ids() const {
    if (!library_->has_device_ids()) return {};
    std::string text;
    check(api().device_ids(device_, sdk::string_sink(text)), "listing device ids");
    return plugin_device_ids(sender(), text);
}

void DeviceHandle::set_properties(const nlohmann::json& properties) {
    check(api().set_properties(device_, properties.dump().c_str()), "setting properties");
}

nlohmann::json DeviceHandle::get_property(const std::string& key) const {
    std::string text;
    check(api().get_property(device_, key.c_str(), sdk::string_sink(text)), "reading property '" + key + "'");
    const nlohmann::json value = parse_plugin_json(sender(), "property " + key, text);
    // Everything in the host reads SUPPORTED_PROPERTIES in one shape; older or OpenVINO-style
    // plugins that list bare names are brought to it here.
    return key == "SUPPORTED_PROPERTIES" ? canonical_supported_properties(sender(), value) : value;
}

std::vector<DeviceHandle::Support> DeviceHandle::query(mosaic_graph_view graph, size_t node_count,
                                                       const nlohmann::json& properties) const {
    std::vector<Support> result(node_count);
    std::vector<bool> answered(node_count, false);
    struct Ctx {
        std::vector<Support>* result;
        std::vector<bool>* answered;
        size_t out_of_range = SIZE_MAX;  // a node index past the graph, reported after the call
    } ctx{&result, &answered};
    mosaic_query_sink sink{&ctx, [](void* c, size_t node, int supported, const char* reason) {
                               auto* x = static_cast<Ctx*>(c);
                               if (node >= x->result->size()) {
                                   x->out_of_range = node;
                                   return;
                               }
                               (*x->result)[node] = {supported != 0, reason ? reason : ""};
                               (*x->answered)[node] = true;
                           }};
    check(api().query(device_, graph, properties.dump().c_str(), sink), "querying the model");
    if (ctx.out_of_range != SIZE_MAX)
        refuse_plugin_value(sender(), "a query answer", "node " + std::to_string(ctx.out_of_range),
                            "a node index below the graph's node_count (" + std::to_string(node_count) + ")");
    for (size_t n = 0; n < node_count; ++n)
        if (!answered[n]) result[n] = {false, "the device did not answer for this node"};
    return result;
}

nlohmann::json DeviceHandle::query_plan(mosaic_graph_view graph, const nlohmann::json& properties) const {
    if (!library_->has_query_plan()) return nullptr;
    std::string text;
    check(api().query_plan(device_, graph, properties.dump().c_str(), sdk::string_sink(text)), "planning the model");
    if (text.empty()) return nullptr;  // the device has no plan to tell
    nlohmann::json plan = parse_plugin_json(sender(), "query_plan", text, "a JSON object");
    if (!plan.is_object()) refuse_plugin_value(sender(), "query_plan", plan.dump(), "a JSON object");
    return plan;
}

mosaic_compiled_model* DeviceHandle::compile(mosaic_graph_view graph, const nlohmann::json& properties) const {
    mosaic_compiled_model* out = nullptr;
    check(api().compile(device_, graph, properties.dump().c_str(), &out), "compiling the model");
    if (!out) throw std::runtime_error("device '" + name_ + "' reported success compiling but returned no model");
    return out;
}

}  // namespace mosaic
