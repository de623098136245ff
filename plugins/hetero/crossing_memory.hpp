// Where each tensor that crosses between subgraphs lives (ABI 1.3 device memory). By default a
// crossing goes through host memory: the producer's device writes it there and the consumer's device
// reads it (each copying to and from its own memory if it has any). Where the producer's device has
// memory of its own, apart from the host's, and every consumer can be reached from it without the
// host, the tensor stays on the device instead:
//  - device-resident: a consumer on the same device reads the producer's buffer in place;
//  - device-to-device: a consumer on another device that the producer's can copy to (GPU.0 -> GPU.1
//    in one OpenCL context) gets its own buffer, filled by one copy once the producer is done.
// A device whose memory is the host's (an integrated GPU, PoCL: memory_info's shares_host_memory)
// reads and writes host memory in place, where a copy between its buffers would cost bandwidth for
// nothing, so HETERO_CROSSING_MEMORY AUTO leaves its crossings there. DEVICE keeps them in device
// memory wherever the devices reach each other (to exercise the path, or measure it); HOST keeps
// every crossing in host memory (to compare, or to rule out a driver's copies). Decided once per
// compiled model; each crossing's path is in its profiling record (hetero_request.cpp).
#pragma once

#include "host_client.hpp"
#include "split_plan.hpp"

#include <string>
#include <vector>

namespace mosaic::hetero {

struct SlotMemory {
    std::string home;                   // the device whose buffer the producer writes; "" = host memory
    std::vector<std::string> replicas;  // other devices that get a copy once the producer is done
};

// Per slot of `plan`: its memory. Only slots produced by a subgraph and read by others (no model
// output, at least one byte) may leave host memory.
// `mode`: HETERO_CROSSING_MEMORY, AUTO, DEVICE or HOST.
std::vector<SlotMemory> place_slot_memory(const SplitPlan& plan, const HostMemory& memory, const std::string& mode);

// The crossing's path as profiling records name it: "device-resident", "device-to-device", or "" for
// host memory (whose label depends on whether the devices copied: "host-staged" or "zero-copy").
std::string device_path(const SlotMemory& memory, const std::string& consumer_device);

// HETERO_SPLIT (SplitPlan::summary) with each transfer's "memory": its path above, or "host".
nlohmann::json summary_with_paths(const SplitPlan& plan, const std::vector<SlotMemory>& slot_memory);

}  // namespace mosaic::hetero
