// HETERO: runs one model across several devices. Loaded through the registry and the plugin ABI
// like any vendor plugin; it reaches the other devices only through the host services.
#pragma once

#include <mosaic/sdk/plugin.hpp>

namespace mosaic::hetero {

class HeteroDevice : public sdk::Device {
public:
    explicit HeteroDevice(const std::string& name);

    std::vector<Support> query(const sdk::GraphView& graph, const nlohmann::json& config) override;
    std::unique_ptr<sdk::CompiledModel> compile(const sdk::GraphView& graph, const nlohmann::json& config) override;
    std::unique_ptr<sdk::CompiledModel> import_model(const void* blob, size_t size, const nlohmann::json& config) override;

private:
    std::vector<std::string> own_keys() const;
};

}  // namespace mosaic::hetero
