#include "runtime/memory_guard.hpp"

#include "runtime/device_handle.hpp"

#include <unistd.h>

#include <cstdio>

namespace mosaic {

std::optional<uint64_t> checked_byte_size(ElementType type, const Shape& shape) {
    uint64_t bytes = element_size(type);
    for (int64_t d : shape) {
        if (d < 0) return std::nullopt;
        if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes)) return std::nullopt;
    }
    return bytes;
}

uint64_t default_tensor_limit(const DeviceHandle& device) {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    uint64_t limit = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : UINT64_MAX;
    try {
        const nlohmann::json own = device.get_property("GPU_DEVICE_TOTAL_MEM_SIZE");
        if (own.is_number_unsigned() && own.get<uint64_t>() > 0) limit = std::min(limit, own.get<uint64_t>());
    } catch (const std::exception&) {
        // The device does not report its memory: the host's is the bound.
    }
    return limit;
}

std::string human_bytes(uint64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = static_cast<double>(bytes);
    size_t u = 0;
    while (v >= 1024 && u + 1 < std::size(units)) {
        v /= 1024;
        ++u;
    }
    char text[32];
    std::snprintf(text, sizeof(text), u ? "%.1f %s" : "%.0f %s", v, units[u]);
    return text;
}

void check_tensor_sizes(const Model& model, uint64_t limit) {
    for (const Node* node : model.get_ordered_ops()) {
        for (size_t o = 0; o < node->output_count(); ++o) {
            const Shape& shape = node->output_shape(o);
            const std::optional<uint64_t> bytes = checked_byte_size(node->output_type(o), shape);
            if (bytes && *bytes <= limit) continue;
            const std::string what = node->is_parameter()
                                         ? "input '" + Model::input_name(*node) + "'"
                                         : "the output of node '" + node->get_friendly_name() + "' (" + node->type_and_version() + ")";
            const std::string size = bytes ? human_bytes(*bytes) + " (" + std::to_string(*bytes) + " bytes)"
                                           : "more than 2^64 bytes";
            throw ModelError("model '" + model.get_friendly_name() + "': " + what + " of shape " + to_string(shape) + " " +
                             to_string(node->output_type(o)) + " needs " + size + ", more than the limit of " +
                             human_bytes(limit) + "; reshape the model to a smaller shape (CLI: --shape), or raise the limit with the " +
                             kMaxTensorBytesKey + " property if the memory is really there");
        }
    }
}

}  // namespace mosaic
