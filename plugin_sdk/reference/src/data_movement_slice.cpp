// Reference kernels of StridedSlice and Slice. Both reduce to one AxisSlice per data axis (start,
// step, count; mosaic/reference/slicing.hpp, shared with device plugins); new axes and shrunk axes
// have size 1 and so do not change the elements' order.
#include "data_movement_kernels.hpp"
#include "data_movement_util.hpp"

#include <mosaic/reference/slicing.hpp>

namespace mosaic::reference {

namespace {

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
    std::vector<dm::AxisSlice> slices;
    try {
        slices = strided_slice_axes(shape, begin, end, strides, args.attrs);
    } catch (const std::runtime_error& e) {
        dm::fail(args, e.what());
    }
    run_slices(args, slices);
}

void slice_kernel(const KernelArgs& args) {
    dm::check_io(args, 3, 1);
    const Shape& shape = args.inputs[0].shape;
    const std::vector<int64_t> start = dm::read_ints(args, args.inputs[1], "start");
    const std::vector<int64_t> stop = dm::read_ints(args, args.inputs[2], "stop");
    std::vector<int64_t> step = dm::read_optional_ints(args, 3, "step");
    std::vector<int64_t> axes = dm::read_optional_ints(args, 4, "axes");
    if (args.inputs.size() < 4) step.assign(start.size(), 1);
    if (args.inputs.size() < 5)
        for (size_t i = 0; i < start.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    std::vector<dm::AxisSlice> slices;
    try {
        slices = slice_axes(shape, start, stop, step, axes);
    } catch (const std::runtime_error& e) {
        dm::fail(args, e.what());
    }
    run_slices(args, slices);
}

}  // namespace

void register_slice_kernels(KernelRegistry& r) {
    r.add("StridedSlice", {"opset1"}, strided_slice_kernel);
    r.add("Slice", {"opset8"}, slice_kernel);
}

}  // namespace mosaic::reference
