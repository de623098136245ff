#include <mosaic/reference/slicing.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

namespace mosaic::reference {

namespace {

void check(bool condition, const std::string& message) {
    if (!condition) throw std::runtime_error(message);
}

// Python slicing of one axis of size dim; a whole bound takes the axis's full extent that way.
AxisSlice slice_axis(int64_t dim, int64_t begin, int64_t end, int64_t step, bool whole_begin, bool whole_end) {
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

}  // namespace

std::vector<AxisSlice> strided_slice_axes(const Shape& shape, const std::vector<int64_t>& begin,
                                          const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                                          const Attributes& attrs) {
    check(end.size() == begin.size() && strides.size() == begin.size(), "begin, end and strides have different lengths");
    const std::vector<int64_t> begin_mask = attrs.get_ints("begin_mask"), end_mask = attrs.get_ints("end_mask");
    const std::vector<int64_t> new_axis = attrs.get_ints("new_axis_mask", {});
    const std::vector<int64_t> shrink = attrs.get_ints("shrink_axis_mask", {});
    const std::vector<int64_t> ellipsis = attrs.get_ints("ellipsis_mask", {});

    size_t consumed = 0, ellipses = 0;
    for (size_t i = 0; i < begin.size(); ++i) {
        if (bit(ellipsis, i)) ++ellipses;
        else if (!bit(new_axis, i)) ++consumed;
    }
    check(ellipses <= 1, "ellipsis_mask has more than one bit set");
    check(consumed <= shape.size(), "begin slices more axes than the data has");

    std::vector<AxisSlice> slices;
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
            check(index >= 0 && index < dim, "shrink_axis_mask index " + std::to_string(begin[i]) + " is out of range");
            slices.push_back({index, 1, 1});
            continue;
        }
        check(strides[i] != 0, "strides contain a zero");
        slices.push_back(slice_axis(dim, begin[i], end[i], strides[i], bit(begin_mask, i), bit(end_mask, i)));
    }
    while (slices.size() < shape.size()) slices.push_back({0, 1, shape[slices.size()]});
    return slices;
}

std::vector<AxisSlice> slice_axes(const Shape& shape, const std::vector<int64_t>& start, const std::vector<int64_t>& stop,
                                  const std::vector<int64_t>& step, const std::vector<int64_t>& axes) {
    check(stop.size() == start.size() && step.size() == start.size() && axes.size() == start.size(),
          "start, stop, step and axes have different lengths");
    const int64_t rank = static_cast<int64_t>(shape.size());
    std::vector<AxisSlice> slices;
    for (int64_t d = 0; d < rank; ++d) slices.push_back({0, 1, shape[d]});
    std::set<int64_t> seen;
    for (size_t i = 0; i < start.size(); ++i) {
        int64_t axis = axes[i];
        check(axis >= -rank && axis < rank, "axis " + std::to_string(axis) + " is out of range");
        if (axis < 0) axis += rank;
        check(seen.insert(axis).second, "axes repeat axis " + std::to_string(axis));
        check(step[i] != 0, "step contains a zero");
        slices[axis] = slice_axis(shape[axis], start[i], stop[i], step[i], false, false);
    }
    return slices;
}

}  // namespace mosaic::reference
