#include "graph_queries.hpp"

#include <mosaic/sdk/decomposed_patterns.hpp>

#include <utility>

namespace mosaic::cpu_plugin {

bool scalar_constant(const ValueTable& values, ValueId v, float& out) {
    return sdk::patterns::scalar_constant(values, v, out);
}

bool scalar_constant_near(const ValueTable& values, ValueId v, double expected, double tolerance) {
    return sdk::patterns::scalar_constant_near(values, v, expected, tolerance);
}

bool int_constant(const ValueTable& values, ValueId v, std::vector<int64_t>& out) {
    return sdk::patterns::int_constant(values, v, out);
}

size_t sole_reader(const sdk::GraphView& g, const ValueTable& values, ValueId v, const char* type) {
    return sdk::patterns::sole_reader(g, values, v, type);
}

ValueId other_operand(const sdk::GraphView& g, const ValueTable& values, size_t node, ValueId v) {
    return sdk::patterns::other_operand(g, values, node, v);
}

std::string lower_case(std::string s) { return sdk::patterns::lower_case(std::move(s)); }

bool normalize_axes(std::vector<int64_t>& axes, size_t rank) { return sdk::patterns::normalize_axes(axes, rank); }

}  // namespace mosaic::cpu_plugin
