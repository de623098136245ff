// Schemas of Broadcast and Tile: ops that replicate data to a larger shape.
#include "ops/data_movement_ops.hpp"

#include <algorithm>

namespace mosaic::ops {

namespace {

std::vector<PortInfo> infer_broadcast(const InferContext& ctx, bool has_bidirectional) {
    const Shape& data = ctx.input_shape(0);
    const std::string mode = ctx.attrs().get_string("mode", "numpy");
    const bool known_mode = mode == "numpy" || mode == "explicit" || (has_bidirectional && mode == "bidirectional");
    ctx.check(known_mode, "mode must be numpy, explicit" + std::string(has_bidirectional ? " or bidirectional" : "") +
                              ", got '" + mode + "'");
    // A target computed when the model runs (a shape fed as an input): the rank is known now, the
    // dimensions then (data_movement_ops.hpp).
    if (dm::computed(ctx, 1)) {
        size_t rank = dm::computed_list_length(ctx, 1, "target shape");
        if (mode == "bidirectional") rank = std::max(rank, data.size());
        return {{ctx.input_type(0), Shape(rank, kDynamicDim)}};
    }
    const std::vector<int64_t> target = dm::const_list(ctx, 1, "target shape", false);
    for (int64_t d : target)
        ctx.check(d >= 0, "target shape " + dm::list_text(target) + " has the invalid dimension " + std::to_string(d));
    const std::string what = "cannot broadcast data shape " + to_string(data) + " to target shape " + dm::list_text(target);

    if (mode == "bidirectional") return {{ctx.input_type(0), broadcast_shapes(ctx, data, target)}};

    Shape out(target.begin(), target.end());
    if (mode == "numpy") {
        // A third input is ignored here: Broadcast-1 IR often carries a placeholder axes_mapping.
        ctx.check(data.size() <= target.size(), what + ": the data has the higher rank");
        const size_t offset = target.size() - data.size();
        for (size_t d = 0; d < data.size(); ++d)
            ctx.check(data[d] < 0 || data[d] == 1 || data[d] == target[offset + d],
                      what + ": dimension " + std::to_string(d) + " is neither 1 nor equal to the target's");
        return {{ctx.input_type(0), out}};
    }

    ctx.check(ctx.input_count() == 3, "explicit mode needs the axes_mapping input");
    const std::vector<int64_t> mapping = dm::const_list(ctx, 2, "axes_mapping", false);
    ctx.check(mapping.size() == data.size(), "axes_mapping " + dm::list_text(mapping) + " must have one entry per axis of the data shape " + to_string(data));
    for (size_t d = 0; d < mapping.size(); ++d) {
        const int64_t axis = mapping[d];
        ctx.check(axis >= 0 && axis < static_cast<int64_t>(target.size()),
                  "axes_mapping " + dm::list_text(mapping) + " names axis " + std::to_string(axis) +
                      ", which target shape " + dm::list_text(target) + " does not have");
        ctx.check(d == 0 || axis > mapping[d - 1],
                  "axes_mapping " + dm::list_text(mapping) + " must be strictly increasing (no transposes)");
        ctx.check(data[d] < 0 || data[d] == 1 || data[d] == target[axis],
                  what + ": data dimension " + std::to_string(d) + " maps to target axis " + std::to_string(axis) +
                      " of a different size");
    }
    return {{ctx.input_type(0), out}};
}

std::vector<PortInfo> infer_tile(const InferContext& ctx) {
    const Shape& data = ctx.input_shape(0);
    if (dm::computed(ctx, 1))
        return {{ctx.input_type(0), Shape(std::max(data.size(), dm::computed_list_length(ctx, 1, "repeats")), kDynamicDim)}};
    const std::vector<int64_t> repeats = dm::const_list(ctx, 1, "repeats", false);
    for (int64_t r : repeats)
        ctx.check(r >= 0, "repeats " + dm::list_text(repeats) + " must not be negative");
    // The shorter of the two is padded with leading 1s.
    const size_t rank = std::max(data.size(), repeats.size());
    Shape out(rank);
    for (size_t d = 0; d < rank; ++d) {
        const int64_t dim = d < rank - data.size() ? 1 : data[d - (rank - data.size())];
        const int64_t rep = d < rank - repeats.size() ? 1 : repeats[d - (rank - repeats.size())];
        out[d] = dm::dim_mul(dim, rep);
    }
    return {{ctx.input_type(0), out}};
}

}  // namespace

void register_broadcast_ops(OpRegistry& r) {
    r.add({"Broadcast", {"opset1"}, 2, 3, [](const InferContext& ctx) { return infer_broadcast(ctx, false); }});
    r.add({"Broadcast", {"opset3"}, 2, 3, [](const InferContext& ctx) { return infer_broadcast(ctx, true); }});
    r.add({"Tile", {"opset1"}, 2, 2, infer_tile});
}

}  // namespace mosaic::ops
