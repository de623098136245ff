// Schemas of StridedSlice and Slice: python-style data[begin:end:stride] per axis. StridedSlice adds
// TensorFlow's masks (ignore begin/end, insert a new axis, take one index and drop the axis, and an
// ellipsis standing for the axes the other entries leave out).
#include "ops/data_movement_ops.hpp"

#include <algorithm>
#include <set>

namespace mosaic::ops {

namespace {

// Clamps a possibly negative index the way python slicing does: into [0, dim] for a forward
// stride, into [-1, dim - 1] for a backward one.
int64_t clamp_index(int64_t index, int64_t dim, bool forward) {
    if (index < 0) index += dim;
    return forward ? std::clamp<int64_t>(index, 0, dim) : std::clamp<int64_t>(index, -1, dim - 1);
}

// Length of data[begin:end:stride] along a static dim; a masked bound takes the dim's full extent.
int64_t slice_length(int64_t dim, int64_t begin, int64_t end, int64_t stride, bool whole_begin, bool whole_end) {
    const bool forward = stride > 0;
    const int64_t b = whole_begin ? (forward ? 0 : dim - 1) : clamp_index(begin, dim, forward);
    const int64_t e = whole_end ? (forward ? dim : -1) : clamp_index(end, dim, forward);
    if (forward) return e > b ? (e - b - 1) / stride + 1 : 0;
    return b > e ? (b - e - 1) / -stride + 1 : 0;
}

// The attribute's i-th bit; the mask may be shorter than begin (missing bits are 0).
bool bit(const std::vector<int64_t>& mask, size_t i) { return i < mask.size() && mask[i] != 0; }

// Whether any bound of a slice (inputs 1 and up) is computed when the model runs.
bool computed_bounds(const InferContext& ctx) {
    for (size_t i = 1; i < ctx.input_count(); ++i)
        if (dm::computed(ctx, i)) return true;
    return false;
}

std::vector<PortInfo> infer_strided_slice(const InferContext& ctx) {
    const Shape& data = ctx.input_shape(0);
    if (computed_bounds(ctx)) {
        // Without masks that add or drop axes the rank stays; with them it depends on the values.
        for (const char* mask : {"new_axis_mask", "shrink_axis_mask", "ellipsis_mask"})
            for (int64_t bit : ctx.attrs().get_ints(mask, {}))
                ctx.check(bit == 0, std::string("begin, end or strides are computed when the model runs, and ") + mask +
                                        " is set; Mosaic needs those known when the model is read to tell the output's rank");
        return {{ctx.input_type(0), Shape(data.size(), kDynamicDim)}};
    }
    const std::vector<int64_t> begin = dm::const_list(ctx, 1, "begin", false);
    const std::vector<int64_t> end = dm::const_list(ctx, 2, "end", false);
    std::vector<int64_t> strides(begin.size(), 1);
    if (ctx.input_count() > 3) strides = dm::const_list(ctx, 3, "strides", false);
    ctx.check(end.size() == begin.size() && strides.size() == begin.size(),
              "begin " + dm::list_text(begin) + ", end " + dm::list_text(end) + " and strides " +
                  dm::list_text(strides) + " must have the same length");

    const auto& attrs = ctx.attrs();
    const std::vector<int64_t> begin_mask = attrs.get_ints("begin_mask"), end_mask = attrs.get_ints("end_mask");
    const std::vector<int64_t> new_axis_mask = attrs.get_ints("new_axis_mask", {});
    const std::vector<int64_t> shrink_mask = attrs.get_ints("shrink_axis_mask", {});
    const std::vector<int64_t> ellipsis_mask = attrs.get_ints("ellipsis_mask", {});

    // Entries that consume a data axis: everything but new axes and the ellipsis.
    int64_t consumed = 0, ellipses = 0;
    for (size_t i = 0; i < begin.size(); ++i) {
        if (bit(ellipsis_mask, i)) ++ellipses;
        else if (!bit(new_axis_mask, i)) ++consumed;
    }
    ctx.check(ellipses <= 1, "ellipsis_mask " + dm::list_text(ellipsis_mask) + " has more than one bit set");
    const int64_t rank = static_cast<int64_t>(data.size());
    ctx.check(consumed <= rank, "begin " + dm::list_text(begin) + " slices " + std::to_string(consumed) +
                                    " axes but the data shape " + to_string(data) + " has rank " + std::to_string(rank));

    Shape out;
    size_t axis = 0;
    for (size_t i = 0; i < begin.size(); ++i) {
        if (bit(ellipsis_mask, i)) {
            for (int64_t k = 0; k < rank - consumed; ++k) out.push_back(data[axis++]);
            continue;
        }
        if (bit(new_axis_mask, i)) {
            out.push_back(1);
            continue;
        }
        const int64_t dim = data[axis++];
        if (bit(shrink_mask, i)) {
            const int64_t index = begin[i] < 0 && dim >= 0 ? begin[i] + dim : begin[i];
            ctx.check(dim < 0 || (index >= 0 && index < dim),
                      "shrink_axis_mask takes index " + std::to_string(begin[i]) + " of axis " +
                          std::to_string(axis - 1) + " of size " + std::to_string(dim) + ", which is out of range");
            continue;
        }
        ctx.check(strides[i] != 0, "strides " + dm::list_text(strides) + " contain a zero");
        out.push_back(dim < 0 ? kDynamicDim
                              : slice_length(dim, begin[i], end[i], strides[i], bit(begin_mask, i), bit(end_mask, i)));
    }
    while (axis < data.size()) out.push_back(data[axis++]);
    return {{ctx.input_type(0), out}};
}

std::vector<PortInfo> infer_slice(const InferContext& ctx) {
    const Shape& data = ctx.input_shape(0);
    const int64_t rank = static_cast<int64_t>(data.size());
    ctx.check(rank > 0, "cannot slice a scalar");
    if (computed_bounds(ctx)) {
        Shape out(data.size(), kDynamicDim);
        if (ctx.input_count() > 4 && !dm::computed(ctx, 4)) {  // only the listed axes change
            out = data;
            for (int64_t a : dm::const_list(ctx, 4, "axes", false)) out[normalize_axis(ctx, a, rank, "slice axis")] = kDynamicDim;
        }
        return {{ctx.input_type(0), out}};
    }
    const std::vector<int64_t> start = dm::const_list(ctx, 1, "start", false);
    const std::vector<int64_t> stop = dm::const_list(ctx, 2, "stop", false);
    std::vector<int64_t> step(start.size(), 1), axes;
    if (ctx.input_count() > 3) step = dm::const_list(ctx, 3, "step", false);
    if (ctx.input_count() > 4) {
        axes = dm::const_list(ctx, 4, "axes", false);
    } else {
        for (size_t i = 0; i < start.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    }
    ctx.check(stop.size() == start.size() && step.size() == start.size() && axes.size() == start.size(),
              "start " + dm::list_text(start) + ", stop " + dm::list_text(stop) + ", step " + dm::list_text(step) +
                  " and axes " + dm::list_text(axes) + " must have the same length");

    Shape out = data;
    std::set<int64_t> seen;
    for (size_t i = 0; i < start.size(); ++i) {
        const int64_t axis = normalize_axis(ctx, axes[i], rank, "slice axis");
        ctx.check(seen.insert(axis).second, "axes " + dm::list_text(axes) + " repeat axis " + std::to_string(axis));
        ctx.check(step[i] != 0, "step " + dm::list_text(step) + " contains a zero");
        if (data[axis] >= 0) out[axis] = slice_length(data[axis], start[i], stop[i], step[i], false, false);
    }
    return {{ctx.input_type(0), out}};
}

}  // namespace

void register_slice_ops(OpRegistry& r) {
    r.add({"StridedSlice", {"opset1"}, 3, 4, infer_strided_slice});
    r.add({"Slice", {"opset8"}, 3, 5, infer_slice});
}

}  // namespace mosaic::ops
