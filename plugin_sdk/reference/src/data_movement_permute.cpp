// Reference kernels of Transpose, DepthToSpace and SpaceToDepth: each is one permutation of the
// data's axes, the last two after splitting the channel or spatial axes into blocks.
#include "data_movement_kernels.hpp"
#include "data_movement_util.hpp"

#include <mosaic/reference/block_permutation.hpp>

namespace mosaic::reference {

namespace {

void transpose_kernel(const KernelArgs& args) {
    dm::check_io(args, 2, 1);
    const ConstTensorView& in = args.inputs[0];
    const int64_t rank = static_cast<int64_t>(in.shape.size());
    std::vector<int64_t> order = dm::read_ints(args, args.inputs[1], "order");
    if (order.empty())
        for (int64_t d = rank - 1; d >= 0; --d) order.push_back(d);
    dm::check(args, static_cast<int64_t>(order.size()) == rank, "order does not name every input axis");
    std::vector<bool> seen(in.shape.size(), false);
    Shape expected;
    for (int64_t axis : order) {
        dm::check(args, axis >= 0 && axis < rank && !seen[axis], "order is not a permutation of the input axes");
        seen[axis] = true;
        expected.push_back(in.shape[axis]);
    }
    dm::check_shape(args, args.outputs[0].shape, expected, "output");
    dm::permute(in.data, in.shape, order, args.outputs[0].data, element_size(in.type));
}

struct Blocks {
    int64_t block = 1;
    size_t spatial = 0;  // K, the number of spatial axes
    bool blocks_first = true;
};

Blocks blocks_of(const KernelArgs& args) {
    dm::check_io(args, 1, 1);
    Blocks b;
    const std::string& mode = args.attrs.get_string("mode");
    dm::check(args, mode == "blocks_first" || mode == "depth_first", "unknown mode '" + mode + "'");
    b.blocks_first = mode == "blocks_first";
    b.block = args.attrs.get_int("block_size", 1);
    dm::check(args, b.block > 0, "block_size must be positive");
    dm::check(args, args.inputs[0].shape.size() >= 3, "input must have rank 3 or more");
    b.spatial = args.inputs[0].shape.size() - 2;
    return b;
}

// The output, of shape `expected`, is the permuted split view of the input.
void permute_blocks(const KernelArgs& args, const BlockPermutation& p, const Shape& expected) {
    dm::check_shape(args, args.outputs[0].shape, expected, "output");
    dm::permute(args.inputs[0].data, p.split, p.order, args.outputs[0].data, element_size(args.inputs[0].type));
}

void depth_to_space_kernel(const KernelArgs& args) {
    const Blocks b = blocks_of(args);
    const ConstTensorView& in = args.inputs[0];
    int64_t divisor = 1;
    for (size_t k = 0; k < b.spatial; ++k) divisor *= b.block;
    dm::check(args, in.shape[1] % divisor == 0, "channels are not divisible by block_size^K");
    Shape expected{in.shape[0], in.shape[1] / divisor};
    for (size_t k = 0; k < b.spatial; ++k) expected.push_back(in.shape[2 + k] * b.block);
    permute_blocks(args, depth_to_space_permutation(in.shape, b.block, b.blocks_first), expected);
}

void space_to_depth_kernel(const KernelArgs& args) {
    const Blocks b = blocks_of(args);
    const ConstTensorView& in = args.inputs[0];
    Shape expected{in.shape[0], in.shape[1]};
    for (size_t k = 0; k < b.spatial; ++k) {
        dm::check(args, in.shape[2 + k] % b.block == 0, "spatial dimensions are not divisible by block_size");
        expected[1] *= b.block;
        expected.push_back(in.shape[2 + k] / b.block);
    }
    permute_blocks(args, space_to_depth_permutation(in.shape, b.block, b.blocks_first), expected);
}

}  // namespace

void register_permute_kernels(KernelRegistry& r) {
    r.add("Transpose", {"opset1"}, transpose_kernel);
    r.add("DepthToSpace", {"opset1"}, depth_to_space_kernel);
    r.add("SpaceToDepth", {"opset1"}, space_to_depth_kernel);
}

BlockPermutation depth_to_space_permutation(const Shape& in, int64_t block, bool blocks_first) {
    const size_t spatial = in.size() - 2;
    int64_t divisor = 1;
    for (size_t k = 0; k < spatial; ++k) divisor *= block;
    const int64_t channels = in[1] / divisor;
    BlockPermutation p{{in[0]}, {0}};
    if (blocks_first) {
        p.split.insert(p.split.end(), spatial, block);
        p.split.push_back(channels);
        p.order.push_back(static_cast<int64_t>(spatial) + 1);
    } else {
        p.split.push_back(channels);
        p.split.insert(p.split.end(), spatial, block);
        p.order.push_back(1);
    }
    const int64_t first_block = blocks_first ? 1 : 2;  // axis of the first block in `split`
    for (size_t k = 0; k < spatial; ++k) {
        p.split.push_back(in[2 + k]);
        p.order.push_back(static_cast<int64_t>(spatial + 2 + k));
        p.order.push_back(first_block + static_cast<int64_t>(k));
    }
    return p;
}

BlockPermutation space_to_depth_permutation(const Shape& in, int64_t block, bool blocks_first) {
    const size_t spatial = in.size() - 2;
    BlockPermutation p{{in[0], in[1]}, {0}};
    std::vector<int64_t> blocks, dims;
    for (size_t k = 0; k < spatial; ++k) {
        p.split.push_back(in[2 + k] / block);
        p.split.push_back(block);
        dims.push_back(static_cast<int64_t>(2 + 2 * k));
        blocks.push_back(static_cast<int64_t>(3 + 2 * k));
    }
    if (!blocks_first) p.order.push_back(1);
    p.order.insert(p.order.end(), blocks.begin(), blocks.end());
    if (blocks_first) p.order.push_back(1);
    p.order.insert(p.order.end(), dims.begin(), dims.end());
    return p;
}

}  // namespace mosaic::reference
