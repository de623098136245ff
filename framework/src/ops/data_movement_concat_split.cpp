// Schemas of Concat, Split and VariadicSplit: joining tensors along an axis and cutting one apart.
#include "ops/data_movement_ops.hpp"

#include <limits>

namespace mosaic::ops {

namespace {

std::vector<PortInfo> infer_concat(const InferContext& ctx) {
    const ElementType type = ctx.input_type(0);
    Shape out = ctx.input_shape(0);
    const int64_t rank = static_cast<int64_t>(out.size());
    ctx.check(rank > 0, "cannot concatenate scalars (input 0 has shape [])");
    const int64_t axis = normalize_axis(ctx, ctx.attrs().get_int("axis"), rank);
    for (size_t i = 1; i < ctx.input_count(); ++i) {
        const Shape& shape = ctx.input_shape(i);
        ctx.check(ctx.input_type(i) == type, "input " + std::to_string(i) + " has element type " +
                                                 to_string(ctx.input_type(i)) + " but input 0 has " +
                                                 to_string(type));
        ctx.check(static_cast<int64_t>(shape.size()) == rank,
                  "input " + std::to_string(i) + " has shape " + to_string(shape) + " of a different rank than input 0 " +
                      to_string(ctx.input_shape(0)));
        for (int64_t d = 0; d < rank; ++d) {
            if (d == axis) {
                out[d] = dm::dim_add(out[d], shape[d]);
            } else if (out[d] < 0) {
                out[d] = shape[d];
            } else {
                ctx.check(shape[d] < 0 || shape[d] == out[d],
                          "input " + std::to_string(i) + " has shape " + to_string(shape) + ", which differs from " +
                              to_string(ctx.input_shape(0)) + " in dimension " + std::to_string(d) +
                              " (only the concatenation axis " + std::to_string(axis) + " may differ)");
            }
        }
    }
    return {{type, out}};
}

// The data axis named by input 1 of Split and VariadicSplit.
int64_t split_axis(const InferContext& ctx) {
    const int64_t rank = static_cast<int64_t>(ctx.input_shape(0).size());
    ctx.check(rank > 0, "cannot split a scalar");
    return normalize_axis(ctx, dm::const_scalar(ctx, 1, "axis"), rank);
}

std::vector<PortInfo> infer_split(const InferContext& ctx) {
    const int64_t parts = ctx.attrs().get_int("num_splits");
    ctx.check(parts > 0, "num_splits must be positive, got " + std::to_string(parts));
    const int64_t axis = split_axis(ctx);
    Shape piece = ctx.input_shape(0);
    const int64_t dim = piece[axis];
    if (dim >= 0) {
        ctx.check(dim % parts == 0, "dimension " + std::to_string(axis) + " of shape " + to_string(piece) +
                                        " (" + std::to_string(dim) + ") is not divisible by num_splits " +
                                        std::to_string(parts));
        piece[axis] = dim / parts;
    }
    return std::vector<PortInfo>(static_cast<size_t>(parts), PortInfo{ctx.input_type(0), piece});
}

std::vector<PortInfo> infer_variadic_split(const InferContext& ctx) {
    const int64_t axis = split_axis(ctx);
    if (dm::computed(ctx, 2)) {
        // Lengths computed when the model runs (torch's split_with_sizes of a dynamic size, as
        // OpenVINO converts it): as many pieces as the list is long, the split axis unknown in each.
        Shape piece = ctx.input_shape(0);
        piece[axis] = kDynamicDim;
        return std::vector<PortInfo>(dm::computed_list_length(ctx, 2, "split_lengths"), PortInfo{ctx.input_type(0), piece});
    }
    const std::vector<int64_t> lengths = dm::const_list(ctx, 2, "split_lengths", false);
    const Shape& shape = ctx.input_shape(0);
    const int64_t dim = shape[axis];
    int64_t known = 0, inferred_at = -1;
    for (size_t i = 0; i < lengths.size(); ++i) {
        if (lengths[i] == -1) {
            ctx.check(inferred_at < 0, "split_lengths " + dm::list_text(lengths) + " has more than one -1");
            inferred_at = static_cast<int64_t>(i);
        } else {
            ctx.check(lengths[i] >= 0, "split_lengths " + dm::list_text(lengths) + " has a negative length other than -1");
            known += lengths[i];
        }
    }
    const std::string where = " dimension " + std::to_string(axis) + " of shape " + to_string(shape);
    if (dim >= 0) {
        if (inferred_at < 0)
            ctx.check(known == dim, "split_lengths " + dm::list_text(lengths) + " sum to " + std::to_string(known) +
                                        ", not to" + where);
        else
            ctx.check(known <= dim, "split_lengths " + dm::list_text(lengths) + " exceed" + where);
    }
    std::vector<PortInfo> outputs;
    for (size_t i = 0; i < lengths.size(); ++i) {
        Shape piece = shape;
        piece[axis] = static_cast<int64_t>(i) == inferred_at ? (dim < 0 ? kDynamicDim : dim - known) : lengths[i];
        outputs.push_back({ctx.input_type(0), piece});
    }
    return outputs;
}

}  // namespace

void register_concat_split_ops(OpRegistry& r) {
    r.add({"Concat", {"opset1"}, 1, std::numeric_limits<size_t>::max(), infer_concat});
    r.add({"Split", {"opset1"}, 2, 2, infer_split});
    r.add({"VariadicSplit", {"opset1"}, 3, 3, infer_variadic_split});
}

}  // namespace mosaic::ops
