// Reference kernel of Pad (opset1, opset12). Every output element maps, axis by axis, to an input
// element (mirrored or clamped by pad_mode when it falls outside) or, in constant mode, to the pad
// value. Negative pads (Pad-12) simply start or stop the mapping inside the data.
#include "data_movement_kernels.hpp"
#include "data_movement_util.hpp"

#include <algorithm>

namespace mosaic::reference {

namespace {

enum class PadMode { constant, edge, reflect, symmetric };

PadMode pad_mode(const KernelArgs& args) {
    const std::string& mode = args.attrs.get_string("pad_mode");
    if (mode == "constant") return PadMode::constant;
    if (mode == "edge") return PadMode::edge;
    if (mode == "reflect") return PadMode::reflect;
    if (mode == "symmetric") return PadMode::symmetric;
    dm::fail(args, "unknown pad_mode '" + mode + "'");
}

// The input index along an axis of size dim for a position i outside [0, dim), or -1 for "the pad
// value"; throws when the mode cannot reach that far.
int64_t source_index(const KernelArgs& args, PadMode mode, int64_t i, int64_t dim) {
    if (mode == PadMode::constant) return -1;
    dm::check(args, dim > 0, "cannot pad an empty axis by mirroring or repeating it");
    int64_t from = -1;
    switch (mode) {
        case PadMode::constant: break;
        case PadMode::edge: from = std::clamp<int64_t>(i, 0, dim - 1); break;
        case PadMode::reflect: from = i < 0 ? -i : 2 * (dim - 1) - i; break;
        case PadMode::symmetric: from = i < 0 ? -i - 1 : 2 * dim - 1 - i; break;
    }
    dm::check(args, from >= 0 && from < dim, "padding reaches beyond what pad_mode can mirror");
    return from;
}

void pad_kernel(const KernelArgs& args) {
    dm::check_io(args, 3, 1);
    const ConstTensorView& in = args.inputs[0];
    const TensorView& out = args.outputs[0];
    const PadMode mode = pad_mode(args);
    const std::vector<int64_t> begin = dm::read_ints(args, args.inputs[1], "pads_begin");
    const std::vector<int64_t> end = dm::read_ints(args, args.inputs[2], "pads_end");
    const size_t rank = in.shape.size();
    dm::check(args, begin.size() == rank && end.size() == rank, "pads must have one entry per data axis");
    Shape expected(rank);
    for (size_t d = 0; d < rank; ++d) expected[d] = std::max<int64_t>(in.shape[d] + begin[d] + end[d], 0);
    dm::check_shape(args, out.shape, expected, "output");

    const size_t esize = element_size(in.type);
    std::vector<uint8_t> pad_value(esize, 0);
    if (args.inputs.size() > 3 && mode == PadMode::constant) {
        const ConstTensorView& value = args.inputs[3];
        dm::check(args, value.type == in.type && value.size() == 1, "pad_value must be a scalar of the data's type");
        std::memcpy(pad_value.data(), value.data, esize);
    }

    const std::vector<int64_t> in_strides = dm::strides_of(in.shape);
    int64_t to = 0;
    dm::for_each_index(out.shape, [&](const std::vector<int64_t>& index) {
        int64_t from = 0;
        for (size_t d = 0; d < rank && from >= 0; ++d) {
            int64_t i = index[d] - begin[d];
            if (i < 0 || i >= in.shape[d]) i = source_index(args, mode, i, in.shape[d]);
            from = i < 0 ? -1 : from + i * in_strides[d];
        }
        if (from < 0) std::memcpy(out.as<uint8_t>() + to * esize, pad_value.data(), esize);
        else dm::copy_element(out.data, to, in.data, from, esize);
        ++to;
    });
}

}  // namespace

void register_pad_kernels(KernelRegistry& r) {
    r.add("Pad", {"opset1", "opset12"}, pad_kernel);
}

}  // namespace mosaic::reference
