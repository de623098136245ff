// Reference kernels of Concat, Split and VariadicSplit. Viewed as [outer, axis * inner] rows, each
// piece (a Concat input, a Split output) owns one contiguous block of every row of the whole.
#include "data_movement_kernels.hpp"
#include "data_movement_util.hpp"

namespace mosaic::reference {

namespace {

int64_t normalized_axis(const KernelArgs& args, int64_t axis, const Shape& shape) {
    const int64_t rank = static_cast<int64_t>(shape.size());
    dm::check(args, axis >= -rank && axis < rank, "axis " + std::to_string(axis) + " is out of range for shape " +
                                                      to_string(shape));
    return axis < 0 ? axis + rank : axis;
}

// The layout of the pieces within the whole: bytes per piece block, blocks per row of the whole.
struct Rows {
    int64_t outer = 1;                // rows
    int64_t row_bytes = 0;            // bytes of one row of the whole
    std::vector<int64_t> block_bytes;  // bytes of each piece within a row
};

// Checks that pieces of the given shapes tile `whole` along `axis`, and lays them out.
Rows layout(const KernelArgs& args, const std::vector<Shape>& pieces, const Shape& whole, size_t axis,
            const char* piece_name) {
    Rows rows;
    int64_t inner = static_cast<int64_t>(element_size(args.inputs[0].type));
    for (size_t d = 0; d < whole.size(); ++d) {
        if (d < axis) rows.outer *= whole[d];
        if (d > axis) inner *= whole[d];
    }
    int64_t total = 0;
    for (const Shape& p : pieces) {
        Shape expected = whole;
        expected[axis] = p.size() == whole.size() ? p[axis] : -1;
        dm::check_shape(args, p, expected, piece_name);
        total += p[axis];
        rows.block_bytes.push_back(p[axis] * inner);
    }
    dm::check(args, total == whole[axis], "the " + std::string(piece_name) + "s cover " + std::to_string(total) +
                                              " of the " + std::to_string(whole[axis]) + " entries along axis " +
                                              std::to_string(axis));
    rows.row_bytes = whole[axis] * inner;
    return rows;
}

void concat_kernel(const KernelArgs& args) {
    dm::check_io(args, 1, 1);
    const TensorView& out = args.outputs[0];
    std::vector<Shape> shapes;
    for (const auto& in : args.inputs) {
        dm::check(args, in.type == out.type, "inputs have different element types");
        shapes.push_back(in.shape);
    }
    const int64_t axis = normalized_axis(args, args.attrs.get_int("axis"), out.shape);
    const Rows rows = layout(args, shapes, out.shape, static_cast<size_t>(axis), "input");
    auto* dst = out.as<uint8_t>();
    for (int64_t o = 0; o < rows.outer; ++o)
        for (size_t i = 0; i < args.inputs.size(); ++i) {
            const int64_t block = rows.block_bytes[i];
            if (block > 0) std::memcpy(dst, args.inputs[i].as<uint8_t>() + o * block, static_cast<size_t>(block));
            dst += block;
        }
}

// Split and VariadicSplit differ only in how shape inference chose the output shapes.
void split_kernel(const KernelArgs& args) {
    dm::check_io(args, 2, args.outputs.size());
    const ConstTensorView& in = args.inputs[0];
    const std::vector<int64_t> axis_value = dm::read_ints(args, args.inputs[1], "axis");
    dm::check(args, axis_value.size() == 1, "axis must hold one value");
    const int64_t axis = normalized_axis(args, axis_value[0], in.shape);
    std::vector<Shape> shapes;
    for (const auto& out : args.outputs) shapes.push_back(out.shape);
    const Rows rows = layout(args, shapes, in.shape, static_cast<size_t>(axis), "output");
    const auto* src = in.as<uint8_t>();
    for (int64_t o = 0; o < rows.outer; ++o)
        for (size_t i = 0; i < args.outputs.size(); ++i) {
            const int64_t block = rows.block_bytes[i];
            if (block > 0) std::memcpy(args.outputs[i].as<uint8_t>() + o * block, src, static_cast<size_t>(block));
            src += block;
        }
}

}  // namespace

void register_concat_split_kernels(KernelRegistry& r) {
    r.add("Concat", {"opset1"}, concat_kernel);
    r.add("Split", {"opset1"}, split_kernel);
    r.add("VariadicSplit", {"opset1"}, split_kernel);
}

}  // namespace mosaic::reference
