// Reference kernels of Broadcast (opset1, opset3) and Tile. Both view the data with the output's
// rank and read each output element from the data position it repeats.
#include "data_movement_kernels.hpp"
#include "data_movement_util.hpp"

#include <algorithm>

namespace mosaic::reference {

namespace {

// `shape` with leading 1s up to `rank`.
Shape left_padded(const KernelArgs& args, const Shape& shape, size_t rank) {
    dm::check(args, shape.size() <= rank, "data shape " + to_string(shape) + " has a higher rank than the output");
    Shape out(rank - shape.size(), 1);
    out.insert(out.end(), shape.begin(), shape.end());
    return out;
}

// Output element at `index` reads data[index[d] % aligned[d]] per axis.
void repeat(const KernelArgs& args, const Shape& aligned) {
    const ConstTensorView& in = args.inputs[0];
    const TensorView& out = args.outputs[0];
    const std::vector<int64_t> strides = dm::strides_of(aligned);
    const size_t esize = element_size(in.type);
    int64_t to = 0;
    dm::for_each_index(out.shape, [&](const std::vector<int64_t>& index) {
        int64_t from = 0;
        for (size_t d = 0; d < aligned.size(); ++d) from += (index[d] % aligned[d]) * strides[d];
        dm::copy_element(out.data, to++, in.data, from, esize);
    });
}

void broadcast_kernel(const KernelArgs& args) {
    dm::check_io(args, 2, 1);
    const Shape& data = args.inputs[0].shape;
    const Shape& out = args.outputs[0].shape;
    const std::string mode = args.attrs.get_string("mode", "numpy");
    Shape aligned;
    if (mode == "explicit") {
        dm::check(args, args.inputs.size() > 2, "explicit mode needs the axes_mapping input");
        const std::vector<int64_t> mapping = dm::read_ints(args, args.inputs[2], "axes_mapping");
        dm::check(args, mapping.size() == data.size(), "axes_mapping must have one entry per data axis");
        aligned.assign(out.size(), 1);
        for (size_t d = 0; d < mapping.size(); ++d) {
            dm::check(args, mapping[d] >= 0 && mapping[d] < static_cast<int64_t>(out.size()) &&
                                (d == 0 || mapping[d] > mapping[d - 1]),
                      "axes_mapping must be increasing output axes");
            aligned[mapping[d]] = data[d];
        }
    } else {
        dm::check(args, mode == "numpy" || (mode == "bidirectional" && args.version != "opset1"),
                  "unknown mode '" + mode + "'");
        aligned = left_padded(args, data, out.size());
    }
    for (size_t d = 0; d < out.size(); ++d)
        dm::check(args, aligned[d] == out[d] || aligned[d] == 1,
                  "data shape " + to_string(data) + " cannot be broadcast to output shape " + to_string(out));
    repeat(args, aligned);
}

void tile_kernel(const KernelArgs& args) {
    dm::check_io(args, 2, 1);
    const std::vector<int64_t> repeats = dm::read_ints(args, args.inputs[1], "repeats");
    const size_t rank = std::max(args.inputs[0].shape.size(), repeats.size());
    const Shape aligned = left_padded(args, args.inputs[0].shape, rank);
    const Shape reps = left_padded(args, repeats, rank);
    Shape expected(rank);
    for (size_t d = 0; d < rank; ++d) {
        dm::check(args, reps[d] >= 0, "repeats must not be negative");
        expected[d] = aligned[d] * reps[d];
    }
    dm::check_shape(args, args.outputs[0].shape, expected, "output");
    repeat(args, aligned);
}

}  // namespace

void register_broadcast_kernels(KernelRegistry& r) {
    r.add("Broadcast", {"opset1", "opset3"}, broadcast_kernel);
    r.add("Tile", {"opset1"}, tile_kernel);
}

}  // namespace mosaic::reference
