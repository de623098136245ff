#include "graph_queries.hpp"

#include <mosaic/sdk/decomposed_patterns.hpp>

#include <cctype>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace mosaic::cpu_plugin {

namespace {

template <typename T>
void append_ints(const void* data, int64_t count, std::vector<int64_t>& out) {
    const auto* p = static_cast<const T*>(data);
    for (int64_t i = 0; i < count; ++i) out.push_back(static_cast<int64_t>(p[i]));
}

}  // namespace

bool scalar_constant(const ValueTable& values, ValueId v, float& out) {
    return sdk::patterns::scalar_constant(values, v, out);
}

bool scalar_constant_near(const ValueTable& values, ValueId v, double expected, double tolerance) {
    return sdk::patterns::scalar_constant_near(values, v, expected, tolerance);
}

bool int_constant(const ValueTable& values, ValueId v, std::vector<int64_t>& out) {
    if (v >= values.size()) return false;
    const Value& value = values[v];
    if (!value.is_constant() || value.shape.size() > 1) return false;
    const int64_t count = shape_size(value.shape);
    out.clear();
    switch (value.type) {
        case ElementType::i64: append_ints<int64_t>(value.constant, count, out); return true;
        case ElementType::i32: append_ints<int32_t>(value.constant, count, out); return true;
        default: return false;
    }
}

size_t sole_reader(const sdk::GraphView& g, const ValueTable& values, ValueId v, const char* type) {
    return sdk::patterns::sole_reader(g, values, v, type);
}

ValueId other_operand(const sdk::GraphView& g, const ValueTable& values, size_t node, ValueId v) {
    return sdk::patterns::other_operand(g, values, node, v);
}

std::string lower_case(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool normalize_axes(std::vector<int64_t>& axes, size_t rank) {
    const auto r = static_cast<int64_t>(rank);
    for (int64_t& a : axes) {
        if (a < -r || a >= r) return false;
        if (a < 0) a += r;
    }
    std::sort(axes.begin(), axes.end());
    return std::adjacent_find(axes.begin(), axes.end()) == axes.end();
}

}  // namespace mosaic::cpu_plugin
