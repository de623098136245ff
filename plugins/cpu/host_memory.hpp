// The machine's memory, which the CPU device's memory_info reports when no DEVICE_MEMORY_LIMIT is set.
#pragma once

#include <cstdint>

namespace mosaic::cpu_plugin {

// The machine's memory, and what of it the kernel counts as available (/proc/meminfo's
// MemAvailable; the total where it cannot be read).
uint64_t physical_memory_bytes();
uint64_t available_memory_bytes();

}  // namespace mosaic::cpu_plugin
