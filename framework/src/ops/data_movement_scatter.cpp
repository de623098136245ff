// Schemas of the scatter ops: ScatterNDUpdate (opset3, opset15), ScatterElementsUpdate (opset3,
// opset12) and ScatterUpdate (opset3). Each writes `updates` into a copy of `data`, so the output
// always has data's type and shape; the versions differ only in how the updates' shape must relate
// to data's and indices', and in the reduction attributes the newer versions add.
#include "ops/data_movement_ops.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>

namespace mosaic::ops {

namespace {

// Whether two shapes can be the same once their dynamic dims are known.
bool shapes_compatible(const Shape& a, const Shape& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i] >= 0 && b[i] >= 0 && a[i] != b[i]) return false;
    return true;
}

// The checks every scatter op shares: data and updates of one type, integer indices.
void check_scatter_types(const InferContext& ctx) {
    dm::require_integer(ctx, 1, "indices");
    ctx.check(ctx.input_type(2) == ctx.input_type(0),
              "updates have element type " + std::string(to_string(ctx.input_type(2))) + " but data has " +
                  to_string(ctx.input_type(0)) + "; they must match");
}

// The `reduction` attribute, lower-cased, checked against the version's choices.
std::string reduction_attr(const InferContext& ctx, std::initializer_list<const char*> choices) {
    std::string value = ctx.attrs().get_string("reduction", "none");
    std::transform(value.begin(), value.end(), value.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string allowed;
    for (const char* c : choices) {
        if (value == c) return value;
        allowed += std::string(allowed.empty() ? "" : ", ") + c;
    }
    ctx.fail("attribute 'reduction' has unsupported value '" + ctx.attrs().get_string("reduction") +
             "', expected one of: " + allowed);
}

// Reads the scatter axis (input 3) into `axis` when it is known at build time. Returns false when it
// is not: the output shape does not depend on it, so only the checks that need it are skipped.
bool known_axis(const InferContext& ctx, int64_t rank, int64_t& axis) {
    dm::require_integer(ctx, 3, "axis");
    const Shape& shape = ctx.input_shape(3);
    ctx.check(shape.empty() || (shape.size() == 1 && shape[0] == 1),
              "input 3 (axis) must be a scalar or a one-element 1D tensor, got shape " + to_string(shape));
    if (!ctx.input_value(3)) return false;
    axis = normalize_axis(ctx, ctx.const_ints(3, "axis").at(0), rank);
    return true;
}

std::vector<PortInfo> infer_scatter_nd_update(const InferContext& ctx, bool has_reduction) {
    check_scatter_types(ctx);
    if (has_reduction) reduction_attr(ctx, {"none", "sum", "sub", "prod", "min", "max"});
    const Shape& data = ctx.input_shape(0);
    const Shape& indices = ctx.input_shape(1);
    const Shape& updates = ctx.input_shape(2);
    ctx.check(!data.empty(), "data must have rank >= 1, got a scalar");
    ctx.check(!indices.empty(), "indices must have rank >= 1, got a scalar");
    const int64_t k = indices.back();
    ctx.check(k >= 0, "the last dimension of indices " + to_string(indices) +
                          " must be static: it says how many data axes each index addresses");
    ctx.check(k <= static_cast<int64_t>(data.size()),
              "the last dimension of indices " + to_string(indices) + " is " + std::to_string(k) +
                  ", more than the rank of data " + to_string(data));

    // updates = indices.shape[:-1] + data.shape[k:]; a one-element tensor may stand for a scalar.
    Shape expected(indices.begin(), indices.end() - 1);
    expected.insert(expected.end(), data.begin() + k, data.end());
    const bool single_for_scalar = expected.empty() && updates.size() == 1 && (updates[0] == 1 || updates[0] < 0);
    ctx.check(shapes_compatible(updates, expected) || single_for_scalar,
              "updates shape " + to_string(updates) + " must be indices.shape[:-1] + data.shape[" + std::to_string(k) +
                  ":] = " + to_string(expected) + " (data " + to_string(data) + ", indices " + to_string(indices) + ")");
    return {{ctx.input_type(0), data}};
}

std::vector<PortInfo> infer_scatter_elements_update(const InferContext& ctx, bool has_reduction) {
    check_scatter_types(ctx);
    if (has_reduction) {
        const std::string reduction = reduction_attr(ctx, {"none", "sum", "prod", "min", "max", "mean"});
        ctx.attrs().get_bool("use_init_val", true);  // parsed here so a bad value fails at build time
        ctx.check(!(reduction == "mean" && ctx.input_type(0) == ElementType::boolean),
                  "reduction 'mean' is not defined for boolean data");
    }
    const Shape& data = ctx.input_shape(0);
    const Shape& indices = ctx.input_shape(1);
    const Shape& updates = ctx.input_shape(2);
    const int64_t rank = static_cast<int64_t>(data.size());
    ctx.check(rank > 0, "data must have rank >= 1, got a scalar");
    ctx.check(indices.size() == data.size(), "indices " + to_string(indices) + " must have the rank of data " +
                                                 to_string(data) + " (" + std::to_string(rank) + ")");
    ctx.check(shapes_compatible(updates, indices),
              "updates shape " + to_string(updates) + " must equal the indices shape " + to_string(indices));
    int64_t axis = 0;
    if (known_axis(ctx, rank, axis)) {
        // Only the scatter axis may be longer than data's: there, repeated indices reduce together.
        for (int64_t d = 0; d < rank; ++d)
            ctx.check(d == axis || indices[d] < 0 || data[d] < 0 || indices[d] <= data[d],
                      "indices " + to_string(indices) + " are longer than data " + to_string(data) + " along axis " +
                          std::to_string(d) + ", which is not the scatter axis " + std::to_string(axis));
    }
    return {{ctx.input_type(0), data}};
}

std::vector<PortInfo> infer_scatter_update(const InferContext& ctx) {
    check_scatter_types(ctx);
    const Shape& data = ctx.input_shape(0);
    const Shape& indices = ctx.input_shape(1);
    const Shape& updates = ctx.input_shape(2);
    ctx.check(!data.empty(), "data must have rank >= 1, got a scalar");
    int64_t axis = 0;
    if (known_axis(ctx, static_cast<int64_t>(data.size()), axis)) {
        Shape expected(data.begin(), data.begin() + axis);
        expected.insert(expected.end(), indices.begin(), indices.end());
        expected.insert(expected.end(), data.begin() + axis + 1, data.end());
        ctx.check(shapes_compatible(updates, expected),
                  "updates shape " + to_string(updates) + " must be data.shape[:axis] + indices.shape + " +
                      "data.shape[axis+1:] = " + to_string(expected) + " (data " + to_string(data) + ", indices " +
                      to_string(indices) + ", axis " + std::to_string(axis) + ")");
    } else {
        ctx.check(updates.size() == data.size() + indices.size() - 1,
                  "updates shape " + to_string(updates) + " must have rank rank(data) + rank(indices) - 1 = " +
                      std::to_string(data.size() + indices.size() - 1));
    }
    return {{ctx.input_type(0), data}};
}

}  // namespace

void register_scatter_ops(OpRegistry& r) {
    r.add({"ScatterNDUpdate", {"opset3", "opset4"}, 3, 3, [](const InferContext& ctx) { return infer_scatter_nd_update(ctx, false); }});
    r.add({"ScatterNDUpdate", {"opset15"}, 3, 3, [](const InferContext& ctx) { return infer_scatter_nd_update(ctx, true); }});
    r.add({"ScatterElementsUpdate", {"opset3"}, 4, 4,
           [](const InferContext& ctx) { return infer_scatter_elements_update(ctx, false); }});
    r.add({"ScatterElementsUpdate", {"opset12"}, 4, 4,
           [](const InferContext& ctx) { return infer_scatter_elements_update(ctx, true); }});
    r.add({"ScatterUpdate", {"opset3"}, 4, 4, infer_scatter_update});
}

}  // namespace mosaic::ops
