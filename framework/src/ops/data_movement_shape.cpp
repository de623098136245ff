// Schemas of ShapeOf and Range: ops whose outputs are made from a shape or from scalar bounds
// rather than copied from a data input.
#include "ops/data_movement_ops.hpp"

#include <cmath>

namespace mosaic::ops {

namespace {

std::vector<PortInfo> infer_shape_of(const InferContext& ctx, bool has_output_type) {
    ElementType type = ElementType::i64;
    if (has_output_type) {
        const std::string name = ctx.attrs().get_string("output_type", "i64");
        type = element_type_from_string(name);
        ctx.check(type == ElementType::i32 || type == ElementType::i64,
                  "output_type must be i32 or i64, got '" + name + "'");
    }
    return {{type, Shape{static_cast<int64_t>(ctx.input_shape(0).size())}}};
}

// Checks that Range's input i is a numeric scalar.
void check_range_input(const InferContext& ctx, size_t i, const char* what) {
    const Shape& shape = ctx.input_shape(i);
    ctx.check(shape.empty() || (shape.size() == 1 && shape[0] == 1),
              std::string(what) + " must be a scalar, got shape " + to_string(shape));
    ctx.check(ctx.input_type(i) != ElementType::boolean && ctx.input_type(i) != ElementType::undefined,
              std::string(what) + " must have a numeric element type, got " + to_string(ctx.input_type(i)));
}

// max(ceil((stop - start) / step), 0), computed exactly for integers; dynamic while a bound is
// computed when the model runs (a decoder's positions from past length to past + new length: known
// once the input shapes are, data_movement_ops.hpp).
int64_t range_length(const InferContext& ctx, ElementType type, bool truncate) {
    const char* names[] = {"start", "stop", "step"};
    for (size_t i = 0; i < 3; ++i)
        if (dm::computed(ctx, i)) return kDynamicDim;
    if (is_integral(type) && !truncate) {
        int64_t v[3];
        for (size_t i = 0; i < 3; ++i) v[i] = ctx.const_ints(i, names[i]).at(0);
        ctx.check(v[2] != 0, "step must not be zero");
        const int64_t span = v[1] - v[0], step = v[2];
        if ((span > 0) != (step > 0) || span == 0) return 0;
        return step > 0 ? (span + step - 1) / step : (span + step + 1) / step;
    }
    double v[3];
    for (size_t i = 0; i < 3; ++i) {
        v[i] = ctx.const_floats(i, names[i]).at(0);
        ctx.check(std::isfinite(v[i]), std::string(names[i]) + " must be finite, got " + std::to_string(v[i]));
        if (truncate) v[i] = std::trunc(v[i]);
    }
    ctx.check(v[2] != 0, "step must not be zero" + std::string(truncate ? " after casting to the integer output_type" : ""));
    const double length = std::ceil((v[1] - v[0]) / v[2]);
    return length > 0 ? static_cast<int64_t>(length) : 0;
}

std::vector<PortInfo> infer_range_1(const InferContext& ctx) {
    const ElementType type = ctx.input_type(0);
    const char* names[] = {"start", "stop", "step"};
    for (size_t i = 0; i < 3; ++i) {
        check_range_input(ctx, i, names[i]);
        ctx.check(ctx.input_type(i) == type, std::string(names[i]) + " has element type " + to_string(ctx.input_type(i)) +
                                                 " but start has " + to_string(type) + "; Range-1 needs one type");
    }
    return {{type, Shape{range_length(ctx, type, false)}}};
}

std::vector<PortInfo> infer_range_4(const InferContext& ctx) {
    const std::string& name = ctx.attrs().get_string("output_type");
    const ElementType type = element_type_from_string(name);
    ctx.check(type != ElementType::undefined && type != ElementType::boolean,
              "output_type must be a numeric element type, got '" + name + "'");
    const char* names[] = {"start", "stop", "step"};
    for (size_t i = 0; i < 3; ++i) check_range_input(ctx, i, names[i]);
    return {{type, Shape{range_length(ctx, type, is_integral(type))}}};
}

}  // namespace

void register_shape_ops(OpRegistry& r) {
    r.add({"ShapeOf", {"opset1"}, 1, 1, [](const InferContext& ctx) { return infer_shape_of(ctx, false); }});
    r.add({"ShapeOf", {"opset3"}, 1, 1, [](const InferContext& ctx) { return infer_shape_of(ctx, true); }});
    r.add({"Range", {"opset1"}, 3, 3, infer_range_1});
    r.add({"Range", {"opset4"}, 3, 3, infer_range_4});
}

}  // namespace mosaic::ops
