// Reference kernels of Reshape, Squeeze, Unsqueeze and Identity-16. They change only the shape (or
// nothing), which shape inference has already worked out, so the data is copied as it is.
#include "data_movement_kernels.hpp"
#include "data_movement_util.hpp"

namespace mosaic::reference {

namespace {

void copy_kernel(const KernelArgs& args) {
    dm::check_io(args, 1, 1);
    const ConstTensorView& in = args.inputs[0];
    const TensorView& out = args.outputs[0];
    dm::check(args, in.size() == out.size(), "input shape " + to_string(in.shape) + " and output shape " +
                                                 to_string(out.shape) + " hold different numbers of elements");
    if (in.size() > 0) std::memcpy(out.data, in.data, static_cast<size_t>(in.size()) * element_size(in.type));
}

}  // namespace

void register_reshape_kernels(KernelRegistry& r) {
    r.add("Reshape", {"opset1"}, copy_kernel);
    r.add("Squeeze", {"opset1"}, copy_kernel);
    r.add("Unsqueeze", {"opset1"}, copy_kernel);
    r.add("Identity", {"opset16"}, copy_kernel);
}

}  // namespace mosaic::reference
