#include "ops/op_registry.hpp"

#include <mosaic/reference/constant_folding.hpp>

#include <algorithm>
#include <map>

namespace mosaic::gpu_plugin {

namespace {

std::map<std::string, OpEntry>& table() {
    static std::map<std::string, OpEntry> entries;
    return entries;
}

}  // namespace

OpRegistration::OpRegistration(std::initializer_list<const char*> types, OpEntry entry) {
    for (const char* t : types) table()[t] = entry;
}

const OpEntry* find_op(const std::string& type) {
    auto it = table().find(type);
    return it == table().end() ? nullptr : &it->second;
}

std::vector<std::string> registered_ops() {
    std::vector<std::string> out;
    for (const auto& [type, entry] : table()) out.push_back(type);
    return out;
}

int64_t group_lanes(int64_t count, const ClDeviceInfo& device) {
    const int64_t most = device.is_cpu_fallback ? 4 : 128;
    int64_t lanes = 1;
    while (lanes < most && lanes * 2 <= count) lanes *= 2;
    return lanes;
}

bool computes_nothing(const sdk::GraphView& g, size_t n) {
    if (g.output_count(n) == 0) return false;
    for (size_t o = 0; o < g.output_count(n); ++o) {
        const Shape s = g.output_shape(n, o);
        if (std::any_of(s.begin(), s.end(), [](int64_t d) { return d < 0; }) || shape_size(s) != 0) return false;
    }
    return true;
}

std::string check_types(const sdk::GraphView& g, size_t n, std::initializer_list<ElementType> allowed) {
    auto ok = [&](ElementType t) { return std::find(allowed.begin(), allowed.end(), t) != allowed.end(); };
    for (size_t i = 0; i < g.input_count(n); ++i)
        if (!ok(g.input_type(n, i))) return "input " + std::to_string(i) + " is " + to_string(g.input_type(n, i)) + ", the GPU kernel takes " + [&] {
                std::string s;
                for (ElementType t : allowed) s += std::string(s.empty() ? "" : "/") + to_string(t);
                return s;
            }();
    for (size_t o = 0; o < g.output_count(n); ++o)
        if (!ok(g.output_type(n, o))) return "output " + std::to_string(o) + " is " + to_string(g.output_type(n, o)) + ", which the GPU kernel does not write";
    return "";
}

std::string check_static_nonempty(const sdk::GraphView& g, size_t n, size_t max_rank, bool empty_inputs) {
    auto check = [&](const Shape& s, const std::string& what, bool may_be_empty = false) -> std::string {
        if (s.size() > max_rank) return what + " has rank " + std::to_string(s.size()) + ", above the GPU kernel's " + std::to_string(max_rank);
        for (int64_t d : s) {
            if (d < 0) return what + " has a dynamic dimension";
            if (d == 0 && !may_be_empty) return what + " is empty";
        }
        return "";
    };
    for (size_t i = 0; i < g.input_count(n); ++i)
        if (auto r = check(g.input_shape(n, i), "input " + std::to_string(i), empty_inputs); !r.empty()) return r;
    for (size_t o = 0; o < g.output_count(n); ++o)
        if (auto r = check(g.output_shape(n, o), "output " + std::to_string(o)); !r.empty()) return r;
    return "";
}

std::string check_numpy_broadcast(const sdk::GraphView& g, size_t n) {
    const std::string spec = g.attributes(n).get_string("auto_broadcast", "numpy");
    if (spec != "numpy" && spec != "NUMPY" && spec != "none" && spec != "NONE")
        return "auto_broadcast '" + spec + "' has no GPU kernel (numpy only)";
    return "";
}

std::string check_constant_input(const sdk::GraphView& g, size_t n, size_t i) {
    if (i >= g.input_count(n)) return "input " + std::to_string(i) + " is missing";
    size_t node = g.input(n, i).node;
    // A view of a constant is a constant too (value_table.cpp).
    while (g.type(node) == "Reshape" || g.type(node) == "Squeeze" || g.type(node) == "Unsqueeze") node = g.input(node, 0).node;
    return g.is_constant(node) ? "" : "input " + std::to_string(i) + " is computed at run time; the GPU kernel needs it constant";
}

std::string check_compile_time_input(const sdk::GraphView& g, size_t n, size_t i) {
    if (i >= g.input_count(n)) return "input " + std::to_string(i) + " is missing";
    return reference::is_compile_time(g, g.input(n, i).node)
               ? ""
               : "input " + std::to_string(i) + " is computed at run time; the GPU kernel needs it known at compile time";
}

std::optional<ConstTensorView> constant_view(const sdk::GraphView& g, size_t n, size_t i) {
    if (!check_constant_input(g, n, i).empty()) return std::nullopt;
    size_t node = g.input(n, i).node;
    while (!g.is_constant(node)) node = g.input(node, 0).node;
    size_t bytes = 0;
    const void* data = g.constant_data(node, &bytes);
    // A view keeps the bytes; the shape is the one the consumer sees.
    return ConstTensorView{g.output_type(node, 0), g.input_shape(n, i), data};
}

std::vector<int64_t> constant_ints(const sdk::GraphView& g, size_t n, size_t i) {
    const std::optional<ConstTensorView> c = constant_view(g, n, i);
    if (!c) return {};
    std::vector<int64_t> out;
    for (int64_t k = 0; k < c->size(); ++k) {
        switch (c->type) {
            case ElementType::i64: out.push_back(c->as<int64_t>()[k]); break;
            case ElementType::i32: out.push_back(c->as<int32_t>()[k]); break;
            case ElementType::u64: out.push_back(static_cast<int64_t>(c->as<uint64_t>()[k])); break;
            case ElementType::u32: out.push_back(c->as<uint32_t>()[k]); break;
            default: return {};
        }
    }
    return out;
}

}  // namespace mosaic::gpu_plugin
