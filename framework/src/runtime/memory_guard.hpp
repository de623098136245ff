// Refusing tensors too large to allocate before anything is allocated. A model whose declared
// input is [2147483647, 3, 224, 224] would otherwise make a device try to allocate (and zero) it,
// which hangs the machine in swap or dies in the allocator, instead of telling the user.
#pragma once

#include <mosaic/model.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace mosaic {

class DeviceHandle;

// Compile property that sets the limit (bytes, per tensor); consumed by the framework.
inline constexpr const char* kMaxTensorBytesKey = "MAX_TENSOR_BYTES";

// The byte size of `count` elements of `type` in `shape`; nullopt when it overflows 64 bits.
std::optional<uint64_t> checked_byte_size(ElementType type, const Shape& shape);

// The default limit: the host's physical memory, or the device's own memory when it reports it
// (GPU_DEVICE_TOTAL_MEM_SIZE) and it is smaller.
uint64_t default_tensor_limit(const DeviceHandle& device);

// Throws ModelError naming the first node output (for a Parameter: the input) whose byte size
// overflows or exceeds `limit`, with the size and the property that raises the limit.
void check_tensor_sizes(const Model& model, uint64_t limit);

// "12.0 GiB" / "512 B".
std::string human_bytes(uint64_t bytes);

}  // namespace mosaic
