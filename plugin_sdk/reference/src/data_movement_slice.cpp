// Reference kernels of StridedSlice and Slice. Both reduce to one AxisSlice per data axis (start,
// step, count); new axes and shrunk axes have size 1 and so do not change the elements' order.
#include "data_movement_kernels.hpp"
#include "data_movement_util.hpp"

#include <algorithm>
#include <set>

namespace mosaic::reference {

namespace {

// Python slicing of one axis of size dim; a whole bound takes the axis's full extent that way.
dm::AxisSlice slice_axis(int64_t dim, int64_t begin, int64_t end, int64_t step, bool whole_begin, bool whole_end) {
    const bool forward = step > 0;
    auto clamp = [&](int64_t index) {
        if (index < 0) index += dim;
        return forward ? std::clamp<int64_t>(index, 0, dim) : std::clamp<int64_t>(index, -1, dim - 1);
    };
    const int64_t b = whole_begin ? (forward ? 0 : dim - 1) : clamp(begin);
    const int64_t e = whole_end ? (forward ? dim : -1) : clamp(end);
    int64_t count = 0;
    if (forward && e > b) count = (e - b - 1) / step + 1;
    if (!forward && b > e) count = (b - e - 1) / -step + 1;
    return {b, step, count};
}

bool bit(const std::vector<int64_t>& mask, size_t i) { return i < mask.size() && mask[i] != 0; }

// Checks the output's element count and copies the slices.
void run_slices(const KernelArgs& args, const std::vector<dm::AxisSlice>& slices) {
    int64_t count = 1;
    for (const auto& s : slices) count *= s.count;
    dm::check(args, count == args.outputs[0].size(), "output shape " + to_string(args.outputs[0].shape) +
                                                         " does not hold the " + std::to_string(count) +
                                                         " sliced elements");
    const ConstTensorView& in = args.inputs[0];
    dm::gather_slices(in.data, in.shape, slices, args.outputs[0].data, element_size(in.type));
}

void strided_slice_kernel(const KernelArgs& args) {
    dm::check_io(args, 3, 1);
    const Shape& shape = args.inputs[0].shape;
    const std::vector<int64_t> begin = dm::read_ints(args, args.inputs[1], "begin");
    const std::vector<int64_t> end = dm::read_ints(args, args.inputs[2], "end");
    std::vector<int64_t> strides = dm::read_optional_ints(args, 3, "strides");
    if (args.inputs.size() < 4) strides.assign(begin.size(), 1);
    dm::check(args, end.size() == begin.size() && strides.size() == begin.size(),
              "begin, end and strides have different lengths");
    const auto& attrs = args.attrs;
    const std::vector<int64_t> begin_mask = attrs.get_ints("begin_mask"), end_mask = attrs.get_ints("end_mask");
    const std::vector<int64_t> new_axis = attrs.get_ints("new_axis_mask", {});
    const std::vector<int64_t> shrink = attrs.get_ints("shrink_axis_mask", {});
    const std::vector<int64_t> ellipsis = attrs.get_ints("ellipsis_mask", {});

    size_t consumed = 0, ellipses = 0;
    for (size_t i = 0; i < begin.size(); ++i) {
        if (bit(ellipsis, i)) ++ellipses;
        else if (!bit(new_axis, i)) ++consumed;
    }
    dm::check(args, ellipses <= 1, "ellipsis_mask has more than one bit set");
    dm::check(args, consumed <= shape.size(), "begin slices more axes than the data has");

    std::vector<dm::AxisSlice> slices;
    for (size_t i = 0; i < begin.size(); ++i) {
        if (bit(ellipsis, i)) {
            // The ellipsis stands for every axis the other entries leave out.
            const size_t whole_axes = shape.size() - consumed;
            for (size_t k = 0; k < whole_axes; ++k) slices.push_back({0, 1, shape[slices.size()]});
            continue;
        }
        if (bit(new_axis, i)) continue;
        const int64_t dim = shape[slices.size()];
        if (bit(shrink, i)) {
            const int64_t index = begin[i] < 0 ? begin[i] + dim : begin[i];
            dm::check(args, index >= 0 && index < dim, "shrink_axis_mask index " + std::to_string(begin[i]) +
                                                           " is out of range");
            slices.push_back({index, 1, 1});
            continue;
        }
        dm::check(args, strides[i] != 0, "strides contain a zero");
        slices.push_back(slice_axis(dim, begin[i], end[i], strides[i], bit(begin_mask, i), bit(end_mask, i)));
    }
    while (slices.size() < shape.size()) slices.push_back({0, 1, shape[slices.size()]});
    run_slices(args, slices);
}

void slice_kernel(const KernelArgs& args) {
    dm::check_io(args, 3, 1);
    const Shape& shape = args.inputs[0].shape;
    const int64_t rank = static_cast<int64_t>(shape.size());
    const std::vector<int64_t> start = dm::read_ints(args, args.inputs[1], "start");
    const std::vector<int64_t> stop = dm::read_ints(args, args.inputs[2], "stop");
    std::vector<int64_t> step = dm::read_optional_ints(args, 3, "step");
    std::vector<int64_t> axes = dm::read_optional_ints(args, 4, "axes");
    if (args.inputs.size() < 4) step.assign(start.size(), 1);
    if (args.inputs.size() < 5)
        for (size_t i = 0; i < start.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    dm::check(args, stop.size() == start.size() && step.size() == start.size() && axes.size() == start.size(),
              "start, stop, step and axes have different lengths");

    std::vector<dm::AxisSlice> slices;
    for (int64_t d = 0; d < rank; ++d) slices.push_back({0, 1, shape[d]});
    std::set<int64_t> seen;
    for (size_t i = 0; i < start.size(); ++i) {
        int64_t axis = axes[i];
        dm::check(args, axis >= -rank && axis < rank, "axis " + std::to_string(axis) + " is out of range");
        if (axis < 0) axis += rank;
        dm::check(args, seen.insert(axis).second, "axes repeat axis " + std::to_string(axis));
        dm::check(args, step[i] != 0, "step contains a zero");
        slices[axis] = slice_axis(shape[axis], start[i], stop[i], step[i], false, false);
    }
    run_slices(args, slices);
}

}  // namespace

void register_slice_kernels(KernelRegistry& r) {
    r.add("StridedSlice", {"opset1"}, strided_slice_kernel);
    r.add("Slice", {"opset8"}, slice_kernel);
}

}  // namespace mosaic::reference
