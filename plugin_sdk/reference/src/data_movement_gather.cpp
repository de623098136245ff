// Reference kernel of Gather (opset1, opset7, opset8). Negative indices count from the end of the
// axis and indices still out of range produce zeros: Gather-8 specifies both, and the older
// versions, which leave such indices undefined, behave the same way as in OpenVINO.
#include "data_movement_kernels.hpp"
#include "data_movement_util.hpp"

namespace mosaic::reference {

namespace {

void gather_kernel(const KernelArgs& args) {
    dm::check_io(args, 3, 1);
    const ConstTensorView& data = args.inputs[0];
    const Shape& ishape = args.inputs[1].shape;
    const std::vector<int64_t> indices = dm::read_ints(args, args.inputs[1], "indices");
    const std::vector<int64_t> axis_value = dm::read_ints(args, args.inputs[2], "axis");
    const int64_t rank = static_cast<int64_t>(data.shape.size());
    const int64_t irank = static_cast<int64_t>(ishape.size());
    dm::check(args, axis_value.size() == 1, "axis must hold one value");
    int64_t axis = axis_value[0];
    dm::check(args, axis >= -rank && axis < rank, "axis " + std::to_string(axis) + " is out of range");
    if (axis < 0) axis += rank;
    int64_t batch_dims = args.version == "opset1" ? 0 : args.attrs.get_int("batch_dims", 0);
    if (batch_dims < 0) batch_dims += irank;
    dm::check(args, batch_dims >= 0 && batch_dims <= axis && batch_dims <= irank, "batch_dims is out of range");

    // output[batch][outer][j][inner] = data[batch][outer][indices[batch][j]][inner]
    Shape expected(data.shape.begin(), data.shape.begin() + axis);
    expected.insert(expected.end(), ishape.begin() + batch_dims, ishape.end());
    expected.insert(expected.end(), data.shape.begin() + axis + 1, data.shape.end());
    dm::check_shape(args, args.outputs[0].shape, expected, "output");
    int64_t batches = 1, outer = 1, inner = 1, per_batch = 1;
    for (int64_t d = 0; d < rank; ++d) {
        dm::check(args, d >= batch_dims || data.shape[d] == ishape[d], "batch dimensions of data and indices differ");
        if (d < batch_dims) batches *= data.shape[d];
        else if (d < axis) outer *= data.shape[d];
        else if (d > axis) inner *= data.shape[d];
    }
    for (int64_t d = batch_dims; d < irank; ++d) per_batch *= ishape[d];
    const int64_t axis_size = data.shape[axis];
    const size_t block = static_cast<size_t>(inner) * element_size(data.type);
    if (block == 0) return;  // nothing to move (and the buffers may be null)

    const auto* src = data.as<uint8_t>();
    auto* dst = args.outputs[0].as<uint8_t>();
    for (int64_t b = 0; b < batches; ++b)
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t j = 0; j < per_batch; ++j, dst += block) {
                int64_t index = indices[b * per_batch + j];
                if (index < 0) index += axis_size;
                if (index < 0 || index >= axis_size) {
                    std::memset(dst, 0, block);
                    continue;
                }
                std::memcpy(dst, src + ((b * outer + o) * axis_size + index) * block, block);
            }
}

}  // namespace

void register_gather_kernels(KernelRegistry& r) {
    r.add("Gather", {"opset1", "opset7", "opset8"}, gather_kernel);
}

}  // namespace mosaic::reference
