// Op schemas of the elementwise group, and the checks shared by its files.
#include "ops/elementwise_ops.hpp"

#include <algorithm>
#include <cctype>

namespace mosaic::ops {

void register_elementwise_ops(OpRegistry& r) {
    register_binary_elementwise_ops(r);
    register_unary_elementwise_ops(r);
    register_reduction_ops(r);
}

Shape numpy_broadcast(const InferContext& ctx, const Shape& a, const Shape& b) {
    const size_t rank = std::max(a.size(), b.size());
    Shape out(rank);
    for (size_t i = 0; i < rank; ++i) {
        const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da == 1 || da == db) {
            out[i] = db;
        } else if (db == 1 || db == kDynamicDim) {
            out[i] = da;
        } else if (da == kDynamicDim) {
            out[i] = db;
        } else {
            ctx.fail("shapes " + to_string(a) + " and " + to_string(b) + " cannot be broadcast together");
        }
    }
    return out;
}

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Equal shapes, a dynamic dim matching any value.
Shape merge_equal(const InferContext& ctx, const Shape& a, const Shape& b) {
    bool ok = a.size() == b.size();
    Shape out = a;
    for (size_t i = 0; ok && i < a.size(); ++i) {
        if (a[i] == kDynamicDim) out[i] = b[i];
        else ok = b[i] == kDynamicDim || a[i] == b[i];
    }
    if (!ok)
        ctx.fail("auto_broadcast=none requires equal input shapes, got " + to_string(a) + " and " + to_string(b));
    return out;
}

}  // namespace

Shape elementwise_shape(const InferContext& ctx, const std::vector<size_t>& inputs) {
    const std::string mode = enum_attr(ctx, "auto_broadcast", "numpy", {"numpy", "none", "explicit", "pdpd"});
    if (mode == "pdpd") ctx.fail("auto_broadcast=pdpd is not supported; use numpy or none");
    Shape out = ctx.input_shape(inputs.at(0));
    for (size_t k = 1; k < inputs.size(); ++k)
        out = mode == "numpy" ? numpy_broadcast(ctx, out, ctx.input_shape(inputs[k]))
                              : merge_equal(ctx, out, ctx.input_shape(inputs[k]));
    return out;
}

ElementType require_numeric(const InferContext& ctx, size_t i) {
    const ElementType t = ctx.input_type(i);
    ctx.check(t != ElementType::boolean && t != ElementType::undefined,
              "input " + std::to_string(i) + " must have a numeric element type, got " + to_string(t));
    return t;
}

ElementType require_integer_or_boolean(const InferContext& ctx, size_t i) {
    const ElementType t = ctx.input_type(i);
    ctx.check(is_integral(t) || t == ElementType::boolean,
              "input " + std::to_string(i) + " must have an integer or boolean element type, got " + to_string(t));
    return t;
}

ElementType require_float(const InferContext& ctx, size_t i) {
    const ElementType t = ctx.input_type(i);
    ctx.check(is_floating(t), "input " + std::to_string(i) + " must have a floating-point element type, got " +
                                  to_string(t));
    return t;
}

ElementType require_boolean(const InferContext& ctx, size_t i) {
    const ElementType t = ctx.input_type(i);
    ctx.check(t == ElementType::boolean,
              "input " + std::to_string(i) + " must have element type boolean, got " + to_string(t));
    return t;
}

void require_same_type(const InferContext& ctx, size_t i, size_t j) {
    ctx.check(ctx.input_type(i) == ctx.input_type(j),
              "inputs " + std::to_string(i) + " and " + std::to_string(j) + " must have the same element type, got " +
                  to_string(ctx.input_type(i)) + " and " + to_string(ctx.input_type(j)));
}

void require_single_value(const InferContext& ctx, size_t i, std::string_view what) {
    const Shape& s = ctx.input_shape(i);
    ctx.check(s.size() <= 1 && (s.empty() || s[0] == 1 || s[0] == kDynamicDim),
              "input " + std::to_string(i) + " (" + std::string(what) + ") must hold a single value, got shape " +
                  to_string(s));
}

double float_attr(const InferContext& ctx, std::string_view name) {
    try {
        return ctx.attrs().get_float(name);
    } catch (const AttributeError& e) {
        ctx.fail(e.what());
    }
}

double float_attr(const InferContext& ctx, std::string_view name, double fallback) {
    return ctx.attrs().has(name) ? float_attr(ctx, name) : fallback;
}

bool bool_attr(const InferContext& ctx, std::string_view name, bool fallback) {
    try {
        return ctx.attrs().get_bool(name, fallback);
    } catch (const AttributeError& e) {
        ctx.fail(e.what());
    }
}

std::string enum_attr(const InferContext& ctx, std::string_view name, const std::string& fallback,
                      const std::vector<std::string>& allowed) {
    const std::string value = lower(ctx.attrs().get_string(name, fallback));
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        ctx.fail("attribute '" + std::string(name) + "' has value '" + value + "', expected one of " + list);
    }
    return value;
}

}  // namespace mosaic::ops
