// What StridedSlice-1 and Slice-8 take from their data, axis by axis: the reference kernels copy it,
// and a device plugin can turn it into one strided copy (a start offset and a step per axis).
#pragma once

#include <mosaic/attributes.hpp>
#include <mosaic/element_type.hpp>

#include <cstdint>
#include <vector>

namespace mosaic::reference {

// Per data axis, the elements a slice takes: start, start + step, ... (count of them). A step may be
// negative.
struct AxisSlice {
    int64_t start = 0, step = 1, count = 0;
};

// StridedSlice-1 over data of `shape`: begin, end and strides with the attributes' begin_mask,
// end_mask, new_axis_mask, shrink_axis_mask and ellipsis_mask. One entry per data axis (new axes and
// shrunk axes do not change the elements' order). Throws std::runtime_error saying what is wrong.
std::vector<AxisSlice> strided_slice_axes(const Shape& shape, const std::vector<int64_t>& begin,
                                          const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                                          const Attributes& attrs);

// Slice-8 over data of `shape`: start, stop, step and axes of equal length (Python slicing per axis).
std::vector<AxisSlice> slice_axes(const Shape& shape, const std::vector<int64_t>& start, const std::vector<int64_t>& stop,
                                  const std::vector<int64_t>& step, const std::vector<int64_t>& axes);

}  // namespace mosaic::reference
