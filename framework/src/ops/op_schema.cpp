#include "ops/op_schema.hpp"

#include <algorithm>
#include <cctype>

#include <mosaic/reference/kernels.hpp>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace mosaic::ops {

namespace {

// A floating-point value as Out. An integer Out (int64_t) has no value for NaN, the infinities or
// values past its range, and a plain cast of them is undefined: those are refused.
template <typename Out>
Out from_floating(double d) {
    static_assert(std::is_same_v<Out, int64_t> || std::is_floating_point_v<Out>);
    if constexpr (std::is_integral_v<Out>) {
        if (!(d >= -0x1p63 && d < 0x1p63)) {
            std::ostringstream text;
            text << d;
            throw std::range_error("the value " + text.str() + " stands where an integer is needed, and has none");
        }
    }
    return static_cast<Out>(d);
}

template <typename Out>
std::vector<Out> convert_values(const KnownValue& v) {
    const int64_t n = shape_size(v.shape);
    std::vector<Out> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const auto* p = static_cast<const uint8_t*>(v.data) + i * element_size(v.type);
        Out x{};
        switch (v.type) {
            case ElementType::f32: { float f; std::memcpy(&f, p, 4); x = from_floating<Out>(f); break; }
            case ElementType::f64: { double d; std::memcpy(&d, p, 8); x = from_floating<Out>(d); break; }
            case ElementType::f16: { uint16_t h; std::memcpy(&h, p, 2); x = from_floating<Out>(f16_to_f32(h)); break; }
            case ElementType::bf16: { uint16_t h; std::memcpy(&h, p, 2); x = from_floating<Out>(bf16_to_f32(h)); break; }
            case ElementType::i8: x = static_cast<Out>(*reinterpret_cast<const int8_t*>(p)); break;
            case ElementType::u8: case ElementType::boolean: x = static_cast<Out>(*p); break;
            case ElementType::i16: { int16_t t; std::memcpy(&t, p, 2); x = static_cast<Out>(t); break; }
            case ElementType::u16: { uint16_t t; std::memcpy(&t, p, 2); x = static_cast<Out>(t); break; }
            case ElementType::i32: { int32_t t; std::memcpy(&t, p, 4); x = static_cast<Out>(t); break; }
            case ElementType::u32: { uint32_t t; std::memcpy(&t, p, 4); x = static_cast<Out>(t); break; }
            case ElementType::i64: { int64_t t; std::memcpy(&t, p, 8); x = static_cast<Out>(t); break; }
            case ElementType::u64: { uint64_t t; std::memcpy(&t, p, 8); x = static_cast<Out>(t); break; }
            case ElementType::undefined: break;
        }
        out[static_cast<size_t>(i)] = x;
    }
    return out;
}

}  // namespace

std::vector<int64_t> KnownValue::as_ints() const { return convert_values<int64_t>(*this); }
std::vector<double> KnownValue::as_floats() const { return convert_values<double>(*this); }

std::vector<int64_t> InferContext::const_ints(size_t i, std::string_view what) const {
    const KnownValue* v = input_value(i);
    if (!v)
        fail("input " + std::to_string(i) + " (" + std::string(what) +
             ") must be a constant or computable from constants and static shapes");
    try {
        return v->as_ints();
    } catch (const std::range_error& e) {
        fail("input " + std::to_string(i) + " (" + std::string(what) + "): " + e.what());
    }
}

std::vector<double> InferContext::const_floats(size_t i, std::string_view what) const {
    const KnownValue* v = input_value(i);
    if (!v)
        fail("input " + std::to_string(i) + " (" + std::string(what) +
             ") must be a constant or computable from constants and static shapes");
    return v->as_floats();
}

void OpRegistry::add(OpSchema schema) {
    for (const auto& version : schema.versions)
        if (find(schema.type, version))
            throw std::logic_error("op schema " + schema.type + "-" + version + " registered twice");
    schemas_.push_back(std::move(schema));
}

const OpSchema* OpRegistry::find(std::string_view type, std::string_view version) const {
    for (const auto& s : schemas_)
        if (s.type == type && std::find(s.versions.begin(), s.versions.end(), version) != s.versions.end())
            return &s;
    return nullptr;
}

bool OpRegistry::has_type(std::string_view type) const {
    return std::any_of(schemas_.begin(), schemas_.end(), [&](const OpSchema& s) { return s.type == type; });
}

std::vector<std::string> OpRegistry::versions_of(std::string_view type) const {
    std::vector<std::string> out;
    for (const auto& s : schemas_)
        if (s.type == type) out.insert(out.end(), s.versions.begin(), s.versions.end());
    return out;
}

std::string OpRegistry::latest_version(std::string_view type) const {
    // "opset13" -> 13 (also "mosaic1" -> 1): the number that orders a type's versions.
    auto number = [](const std::string& v) {
        size_t digits = v.size();
        while (digits > 0 && std::isdigit(static_cast<unsigned char>(v[digits - 1]))) --digits;
        return digits == v.size() ? 0 : std::stoi(v.substr(digits));
    };
    std::vector<std::string> versions = versions_of(type);
    if (versions.empty()) return "";
    return *std::max_element(versions.begin(), versions.end(),
                             [&](const std::string& a, const std::string& b) { return number(a) < number(b); });
}

const OpRegistry& OpRegistry::instance() {
    static const OpRegistry registry = [] {
        OpRegistry r;
        register_graph_ops(r);
        register_elementwise_ops(r);
        register_nn_ops(r);
        register_data_movement_ops(r);
        return r;
    }();
    return registry;
}

Shape broadcast_shapes(const InferContext& ctx, const Shape& a, const Shape& b) {
    const size_t rank = std::max(a.size(), b.size());
    Shape out(rank);
    for (size_t i = 0; i < rank; ++i) {
        int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1)
            ctx.fail("shapes " + to_string(a) + " and " + to_string(b) + " cannot be broadcast together");
        out[i] = da == 1 ? db : da;
    }
    return out;
}

int64_t normalize_axis(const InferContext& ctx, int64_t axis, int64_t rank, std::string_view what) {
    if (axis < -rank || axis >= rank)
        ctx.fail(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
                 std::to_string(rank));
    return axis < 0 ? axis + rank : axis;
}

}  // namespace mosaic::ops
