#include "crossing_memory.hpp"

#include <algorithm>

namespace mosaic::hetero {

std::vector<SlotMemory> place_slot_memory(const SplitPlan& plan, const HostMemory& memory, const std::string& mode) {
    std::vector<SlotMemory> result(plan.slots.size());
    if (mode == "HOST" || !memory.available()) return result;
    // Under AUTO, a device whose memory is the host's keeps its crossings there.
    auto worth_it = [&](const std::string& device) { return mode == "DEVICE" || !memory.shares_host_memory(device); };
    for (size_t s = 0; s < plan.slots.size(); ++s) {
        const Slot& slot = plan.slots[s];
        if (slot.kind != Slot::Kind::produced || !slot.model_outputs.empty() || slot.bytes() == 0) continue;
        const std::string& producer = plan.subgraphs[slot.subgraph].device;
        // A device without buffers of its own (a CPU) works in host memory already.
        if (memory.copy_path(producer, "") != MOSAIC_COPY_DEVICE_TO_HOST || !worth_it(producer)) continue;
        SlotMemory placed{producer, {}};
        bool reachable = true;
        for (const SubgraphPlan& consumer : plan.subgraphs) {
            if (std::find(consumer.inputs.begin(), consumer.inputs.end(), s) == consumer.inputs.end()) continue;
            if (consumer.device == producer) continue;
            if (memory.copy_path(producer, consumer.device) != MOSAIC_COPY_DEVICE || !worth_it(consumer.device)) {
                reachable = false;  // one consumer needs host memory: the tensor goes there, for all
                break;
            }
            if (std::find(placed.replicas.begin(), placed.replicas.end(), consumer.device) == placed.replicas.end())
                placed.replicas.push_back(consumer.device);
        }
        if (reachable) result[s] = std::move(placed);
    }
    return result;
}

nlohmann::json summary_with_paths(const SplitPlan& plan, const std::vector<SlotMemory>& slot_memory) {
    nlohmann::json split = plan.summary();
    for (size_t i = 0; i < plan.transfers.size(); ++i) {
        const Transfer& t = plan.transfers[i];
        const std::string path = device_path(slot_memory[t.slot], plan.subgraphs[t.to].device);
        split["transfers"][i]["memory"] = path.empty() ? "host" : path;
    }
    return split;
}

std::string device_path(const SlotMemory& memory, const std::string& consumer_device) {
    if (memory.home.empty()) return "";
    return consumer_device == memory.home ? "device-resident" : "device-to-device";
}

}  // namespace mosaic::hetero
