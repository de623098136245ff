// HETERO: runs one model across several devices. Loaded through the registry and the plugin ABI
// like any vendor plugin; it reaches the other devices only through the host services.
#pragma once

#include <mosaic/sdk/plugin.hpp>

namespace mosaic::hetero {

class HeteroConfig;

class HeteroDevice : public sdk::Device {
public:
    explicit HeteroDevice(const std::string& name);

    std::vector<Support> query(const sdk::GraphView& graph, const nlohmann::json& config) override;
    std::unique_ptr<sdk::CompiledModel> compile(const sdk::GraphView& graph, const nlohmann::json& config) override;
    // The split compile would build, with its estimates: HETERO_SPLIT's shape (docs/hetero.md).
    bool plan(const sdk::GraphView& graph, const nlohmann::json& config, nlohmann::json& out) override;
    std::unique_ptr<sdk::CompiledModel> import_model(const void* blob, size_t size, const nlohmann::json& config) override;

private:
    std::vector<std::string> own_keys() const;
    // After `device` failed compiling a subgraph with `error`: when it is a device failure and
    // another device is left, removes it from the list, logs `what` and that HETERO falls back,
    // and returns true (compile then places the model again).
    bool drop_failed_device(HeteroConfig& cfg, const std::string& device, const std::exception& error,
                            const std::string& what) const;
};

}  // namespace mosaic::hetero
