// Schemas of Reshape, Squeeze and Unsqueeze: ops that change a shape but never the data's order; and
// Identity-16 (OpenVINO's ONNX front end writes ONNX's Identity as it), which changes nothing.
#include "ops/data_movement_ops.hpp"

#include <algorithm>
#include <set>

namespace mosaic::ops {

namespace {

std::vector<PortInfo> infer_reshape(const InferContext& ctx) {
    const Shape& in = ctx.input_shape(0);
    if (dm::computed(ctx, 1)) return {{ctx.input_type(0), Shape(dm::computed_list_length(ctx, 1, "target shape"), kDynamicDim)}};
    const std::vector<int64_t> target = dm::const_list(ctx, 1, "target shape", false);
    const bool special_zero = ctx.attrs().get_bool("special_zero");
    const std::string pattern = "target shape " + dm::list_text(target);

    Shape out(target.size());
    int64_t inferred_at = -1;
    for (size_t i = 0; i < target.size(); ++i) {
        const int64_t v = target[i];
        if (v == 0 && special_zero) {
            ctx.check(i < in.size(), pattern + " copies dimension " + std::to_string(i) +
                                         " (special_zero) but the input shape " + to_string(in) + " has rank " +
                                         std::to_string(in.size()));
            out[i] = in[i];
        } else if (v == -1) {
            ctx.check(inferred_at < 0, pattern + " has more than one -1");
            inferred_at = static_cast<int64_t>(i);
        } else {
            ctx.check(v >= 0, pattern + " has the invalid dimension " + std::to_string(v));
            out[i] = v;
        }
    }

    const int64_t total = is_static(in) ? shape_size(in) : kDynamicDim;
    int64_t known = 1;
    for (size_t i = 0; i < out.size(); ++i)
        if (static_cast<int64_t>(i) != inferred_at) known = dm::dim_mul(known, out[i]);
    if (inferred_at >= 0) {
        if (total < 0 || known < 0) {
            out[inferred_at] = kDynamicDim;
        } else {
            ctx.check(known != 0, "cannot infer the -1 of " + pattern + ": the other dimensions multiply to 0");
            ctx.check(total % known == 0, "cannot reshape " + to_string(in) + " (" + std::to_string(total) +
                                              " elements) to " + pattern);
            out[inferred_at] = total / known;
        }
    } else if (total >= 0 && known >= 0) {
        ctx.check(total == known, "cannot reshape " + to_string(in) + " (" + std::to_string(total) +
                                      " elements) to " + to_string(out) + " (" + std::to_string(known) + " elements)");
    }
    return {{ctx.input_type(0), out}};
}

std::vector<PortInfo> infer_squeeze(const InferContext& ctx) {
    const Shape& in = ctx.input_shape(0);
    const int64_t rank = static_cast<int64_t>(in.size());
    // Without axes (or with an empty list, as OpenVINO and ONNX treat it) every 1 is removed.
    const std::vector<int64_t> axes = ctx.input_count() > 1 ? dm::const_list(ctx, 1, "axes", true) : std::vector<int64_t>{};
    std::vector<bool> drop(in.size(), false);
    for (int64_t a : axes) {
        const int64_t axis = normalize_axis(ctx, a, rank, "squeeze axis");
        ctx.check(in[axis] == 1 || in[axis] < 0, "cannot squeeze dimension " + std::to_string(axis) + " of shape " +
                                                     to_string(in) + ": its size is not 1");
        drop[axis] = true;
    }
    if (axes.empty())
        for (size_t d = 0; d < in.size(); ++d) drop[d] = in[d] == 1;
    Shape out;
    for (size_t d = 0; d < in.size(); ++d)
        if (!drop[d]) out.push_back(in[d]);
    return {{ctx.input_type(0), out}};
}

std::vector<PortInfo> infer_unsqueeze(const InferContext& ctx) {
    const Shape& in = ctx.input_shape(0);
    if (dm::computed(ctx, 1)) {
        // Where the new axes go is known when the model runs; how many, now.
        const size_t added = ctx.input_shape(1).empty() ? 1 : dm::computed_list_length(ctx, 1, "axes");
        return {{ctx.input_type(0), Shape(in.size() + added, kDynamicDim)}};
    }
    const std::vector<int64_t> axes = dm::const_list(ctx, 1, "axes", true);
    const int64_t out_rank = static_cast<int64_t>(in.size() + axes.size());
    std::set<int64_t> inserted;
    for (int64_t a : axes) {
        const int64_t axis = normalize_axis(ctx, a, out_rank, "unsqueeze axis");
        ctx.check(inserted.insert(axis).second, "unsqueeze axes " + dm::list_text(axes) + " repeat axis " +
                                                    std::to_string(axis));
    }
    Shape out;
    size_t next = 0;
    for (int64_t d = 0; d < out_rank; ++d) out.push_back(inserted.count(d) ? 1 : in[next++]);
    return {{ctx.input_type(0), out}};
}

}  // namespace

void register_reshape_ops(OpRegistry& r) {
    r.add({"Reshape", {"opset1"}, 2, 2, infer_reshape});
    r.add({"Identity", {"opset16"}, 1, 1, [](const InferContext& ctx) { return std::vector<PortInfo>{ctx.input(0)}; }});
    r.add({"Squeeze", {"opset1"}, 1, 2, infer_squeeze});
    r.add({"Unsqueeze", {"opset1"}, 2, 2, infer_unsqueeze});
}

}  // namespace mosaic::ops
