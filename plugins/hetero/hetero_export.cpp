// HETERO's export blob: the split plan, then each subgraph as its device's own export blob, or,
// for a device that cannot export, as the subgraph's graph to compile again on import.
//
//   "MOSAIC-HETERO 1\n" | u64 manifest length | manifest JSON | payload bytes
#include "hetero_compiled.hpp"

#include <cstring>

namespace mosaic::hetero {

namespace {

constexpr const char* kMagic = "MOSAIC-HETERO 1\n";

[[noreturn]] void corrupt(const std::string& what) {
    throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "the blob is not a valid HETERO export: " + what);
}

}  // namespace

std::string HeteroCompiledModel::export_model() const {
    nlohmann::json manifest = {{"plan", plan_.to_json()}, {"subgraphs", nlohmann::json::array()},
                               {"constants", nlohmann::json::array()}};
    std::string payload;
    for (size_t k = 0; k < compiled_.size(); ++k) {
        std::string blob;
        const bool native = compiled_[k]->export_blob(blob);
        if (!native) plan_.subgraphs[k].graph.write(blob);
        manifest["subgraphs"].push_back({{"kind", native ? "device" : "graph"}, {"offset", payload.size()},
                                         {"size", blob.size()}});
        payload += blob;
    }
    for (size_t s = 0; s < plan_.slots.size(); ++s) {
        const Slot& slot = plan_.slots[s];
        if (slot.kind != Slot::Kind::constant) continue;
        manifest["constants"].push_back({{"slot", s}, {"offset", payload.size()}});
        if (slot.bytes()) payload.append(static_cast<const char*>(slot.constant), slot.bytes());
    }
    const std::string text = manifest.dump();
    std::string out = kMagic;
    const uint64_t length = text.size();
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
    return out + text + payload;
}

namespace {

// Import-time properties over the exported ones: PERF_COUNT for every subgraph whose device has it,
// then DEVICE_PROPERTIES of its device.
void apply_import_properties(SplitPlan& plan, const HostClient& host, const nlohmann::json& config) {
    const bool perf = config.value("PERF_COUNT", false);
    plan.perf_count = plan.perf_count || perf;
    const nlohmann::json per_device = config.value("DEVICE_PROPERTIES", nlohmann::json::object());
    for (SubgraphPlan& sub : plan.subgraphs) {
        if (perf && host.device_properties(sub.device).contains("PERF_COUNT")) sub.properties["PERF_COUNT"] = true;
        for (const std::string& name : {base_device_name(sub.device), sub.device})
            if (per_device.contains(name) && per_device.at(name).is_object())
                for (const auto& [key, value] : per_device.at(name).items()) sub.properties[key] = value;
    }
}

}  // namespace

std::unique_ptr<HeteroCompiledModel> HeteroCompiledModel::import_blob(const void* data, size_t size,
                                                                      const HostClient& host,
                                                                      const nlohmann::json& config) {
    // The blob is only valid during the call: keep a copy, which graphs and constants point into.
    auto bytes = std::make_shared<const std::string>(static_cast<const char*>(data), size);
    const size_t magic = std::strlen(kMagic);
    if (bytes->size() < magic + 8 || bytes->compare(0, magic, kMagic) != 0) corrupt("it does not start with " + std::string("MOSAIC-HETERO 1"));
    const auto* raw = reinterpret_cast<const uint8_t*>(bytes->data());
    uint64_t length = 0;
    for (int i = 0; i < 8; ++i) length |= static_cast<uint64_t>(raw[magic + i]) << (8 * i);
    const size_t start = magic + 8;
    if (length > size - start) corrupt("the manifest runs past the end");
    const size_t payload = start + length;
    SplitPlan plan;
    nlohmann::json manifest;
    try {
        manifest = nlohmann::json::parse(bytes->begin() + static_cast<std::ptrdiff_t>(start),
                                         bytes->begin() + static_cast<std::ptrdiff_t>(payload));
        plan = SplitPlan::from_json(manifest.at("plan"));
        if (manifest.at("subgraphs").size() != plan.subgraphs.size()) corrupt("subgraph count mismatch");
        for (const auto& c : manifest.at("constants")) {
            const size_t slot = c.at("slot"), offset = c.at("offset");
            if (slot >= plan.slots.size() || plan.slots[slot].kind != Slot::Kind::constant) corrupt("bad constant slot");
            if (offset > size - payload || plan.slots[slot].bytes() > size - payload - offset) corrupt("constant past the end");
            plan.owned_constants.push_back(aligned_copy(raw + payload + offset, plan.slots[slot].bytes()));
            plan.slots[slot].constant = plan.owned_constants.back()->data();
        }
    } catch (const sdk::Error&) {
        throw;
    } catch (const std::exception& e) {
        corrupt(e.what());
    }
    apply_import_properties(plan, host, config);
    std::vector<std::shared_ptr<HostCompiled>> compiled;
    for (size_t k = 0; k < plan.subgraphs.size(); ++k) {
        const auto& entry = manifest["subgraphs"][k];
        const size_t offset = entry.value("offset", size_t{0}), length_k = entry.value("size", size_t{0});
        if (offset > size - payload || length_k > size - payload - offset) corrupt("subgraph blob past the end");
        const uint8_t* blob = raw + payload + offset;
        SubgraphPlan& sub = plan.subgraphs[k];
        try {
            if (entry.value("kind", "") == "device") {
                compiled.push_back(host.import_blob(sub.device, blob, length_k, sub.properties));
            } else {
                sub.graph = OwnedGraph::read(blob, length_k);
                compiled.push_back(host.compile(sub.device, sub.graph.view(), sub.properties));
            }
        } catch (const std::exception& e) {
            throw sdk::Error(MOSAIC_ERROR_GENERAL, "importing subgraph" + std::to_string(k) + " on " + sub.device +
                                                       ": " + e.what());
        }
    }
    return std::make_unique<HeteroCompiledModel>(std::move(plan), std::move(compiled), bytes, host);
}

}  // namespace mosaic::hetero
