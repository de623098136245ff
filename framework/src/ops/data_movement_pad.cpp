// Schema of Pad: grows each axis by pads_begin / pads_end elements made by pad_mode. Pad-12 also
// takes negative pads, which crop the axis instead.
#include "ops/data_movement_ops.hpp"

#include <algorithm>

namespace mosaic::ops {

namespace {

std::vector<PortInfo> infer_pad(const InferContext& ctx, bool allow_negative) {
    const Shape& data = ctx.input_shape(0);
    const std::string& mode = ctx.attrs().get_string("pad_mode");
    ctx.check(mode == "constant" || mode == "edge" || mode == "reflect" || mode == "symmetric",
              "pad_mode must be constant, edge, reflect or symmetric, got '" + mode + "'");
    if (ctx.input_count() > 3) {
        ctx.check(ctx.input_type(3) == ctx.input_type(0), std::string("pad_value has element type ") + to_string(ctx.input_type(3)) +
                                                              " but data has " + to_string(ctx.input_type(0)));
        ctx.check(ctx.input_shape(3).empty(), "pad_value must be a scalar, got shape " + to_string(ctx.input_shape(3)));
    }

    if (dm::computed(ctx, 1) || dm::computed(ctx, 2)) {
        for (size_t i : {size_t{1}, size_t{2}})
            ctx.check(!dm::computed(ctx, i) || dm::computed_list_length(ctx, i, i == 1 ? "pads_begin" : "pads_end") == data.size(),
                      "pads_begin and pads_end must each have one entry per axis of the data shape " + to_string(data));
        return {{ctx.input_type(0), Shape(data.size(), kDynamicDim)}};
    }
    const std::vector<int64_t> begin = dm::const_list(ctx, 1, "pads_begin", false);
    const std::vector<int64_t> end = dm::const_list(ctx, 2, "pads_end", false);
    ctx.check(begin.size() == data.size() && end.size() == data.size(),
              "pads_begin " + dm::list_text(begin) + " and pads_end " + dm::list_text(end) +
                  " must each have one entry per axis of the data shape " + to_string(data));
    Shape out(data.size());
    for (size_t d = 0; d < data.size(); ++d) {
        if (!allow_negative)
            ctx.check(begin[d] >= 0 && end[d] >= 0, "pads_begin " + dm::list_text(begin) + " and pads_end " +
                                                        dm::list_text(end) + " must not be negative in Pad-1");
        const int64_t dim = data[d];
        if (dim < 0) {
            out[d] = kDynamicDim;
            continue;
        }
        // How far the padding reaches past each edge of the data; the reflecting modes can only
        // mirror what is there.
        const int64_t reach = std::max(begin[d], end[d]);
        const std::string where = " on axis " + std::to_string(d) + " of shape " + to_string(data);
        if (mode == "reflect")
            ctx.check(reach <= dim - 1, "reflect padding of " + std::to_string(reach) +
                                            " exceeds the dimension size minus one" + where);
        if (mode == "symmetric")
            ctx.check(reach <= dim, "symmetric padding of " + std::to_string(reach) + " exceeds the dimension size" + where);
        if (mode == "edge") ctx.check(reach <= 0 || dim > 0, "edge padding of an empty dimension" + where);
        out[d] = dim + begin[d] + end[d];
        if (allow_negative) out[d] = std::max<int64_t>(out[d], 0);
    }
    return {{ctx.input_type(0), out}};
}

}  // namespace

void register_pad_ops(OpRegistry& r) {
    r.add({"Pad", {"opset1"}, 3, 4, [](const InferContext& ctx) { return infer_pad(ctx, false); }});
    r.add({"Pad", {"opset12"}, 3, 4, [](const InferContext& ctx) { return infer_pad(ctx, true); }});
}

}  // namespace mosaic::ops
