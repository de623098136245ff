// Reference kernels of Broadcast (opset1, opset3) and Tile. Both view the data with the output's
// rank and read each output element from the data position it repeats.
#include "data_movement_kernels.hpp"
#include "data_movement_util.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace mosaic::reference {

namespace {

// `shape` with leading 1s up to `rank`.
Shape left_padded(const KernelArgs& args, const Shape& shape, size_t rank) {
    dm::check(args, shape.size() <= rank, "data shape " + to_string(shape) + " has a higher rank than the output");
    Shape out(rank - shape.size(), 1);
    out.insert(out.end(), shape.begin(), shape.end());
    return out;
}

// Output element at `index` reads data[index[d] % aligned[d]] per axis. Copied in blocks, as this
// runs on every decode step of an LLM (its grouped key/value heads broadcast to the query heads):
// the trailing axes the data is not repeated along are one contiguous copy, and along a repeated
// axis the first period is built once and the rest copied from it.
class Repeater {
public:
    Repeater(const Shape& aligned, const Shape& shape, size_t element_bytes)
        : aligned_(aligned), shape_(shape), out_block_(shape.size() + 1), in_block_(shape.size() + 1) {
        const size_t rank = shape.size();
        out_block_[rank] = in_block_[rank] = element_bytes;
        for (size_t d = rank; d-- > 0;) {
            out_block_[d] = out_block_[d + 1] * static_cast<size_t>(shape[d]);
            in_block_[d] = in_block_[d + 1] * static_cast<size_t>(aligned[d]);
        }
        contiguous_ = rank;
        while (contiguous_ > 0 && aligned[contiguous_ - 1] == shape[contiguous_ - 1]) --contiguous_;
    }

    // Axes d.. of the output at `dst`, from those of the data at `src`.
    void fill(size_t d, uint8_t* dst, const uint8_t* src) const {
        if (d == contiguous_) {
            std::memcpy(dst, src, out_block_[d]);
            return;
        }
        const size_t period = static_cast<size_t>(aligned_[d]), count = static_cast<size_t>(shape_[d]);
        const size_t step = out_block_[d + 1];
        for (size_t i = 0; i < period; ++i) fill(d + 1, dst + i * step, src + i * in_block_[d + 1]);
        for (size_t i = period; i < count; i += period) std::memcpy(dst + i * step, dst, std::min(period, count - i) * step);
    }

private:
    const Shape& aligned_;
    const Shape& shape_;
    std::vector<size_t> out_block_, in_block_;  // [d]: the bytes of axes d.. (one index of axis d-1)
    size_t contiguous_;                          // from this axis on, the output is the data as it is
};

void repeat(const KernelArgs& args, const Shape& aligned) {
    const TensorView& out = args.outputs[0];
    if (shape_size(out.shape) == 0) return;
    Repeater(aligned, out.shape, element_size(args.inputs[0].type))
        .fill(0, static_cast<uint8_t*>(out.data), static_cast<const uint8_t*>(args.inputs[0].data));
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
