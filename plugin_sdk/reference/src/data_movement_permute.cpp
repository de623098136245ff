// Reference kernels of Transpose, DepthToSpace and SpaceToDepth: each is one permutation of the
// data's axes, the last two after splitting the channel or spatial axes into blocks.
#include "data_movement_kernels.hpp"
#include "data_movement_util.hpp"

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

// DepthToSpace: channels C = [bs]*K x C' (blocks_first) or C' x [bs]*K (depth_first) are split
// off, then each block axis moves next to its spatial axis: [N, C', D1, bs, D2, bs, ...].
void depth_to_space_kernel(const KernelArgs& args) {
    const Blocks b = blocks_of(args);
    const ConstTensorView& in = args.inputs[0];
    const size_t K = b.spatial;
    int64_t divisor = 1;
    for (size_t k = 0; k < K; ++k) divisor *= b.block;
    dm::check(args, in.shape[1] % divisor == 0, "channels are not divisible by block_size^K");
    const int64_t channels = in.shape[1] / divisor;

    Shape split{in.shape[0]}, expected{in.shape[0], channels};
    std::vector<int64_t> order{0};
    if (b.blocks_first) {
        split.insert(split.end(), K, b.block);
        split.push_back(channels);
        order.push_back(static_cast<int64_t>(K) + 1);
    } else {
        split.push_back(channels);
        split.insert(split.end(), K, b.block);
        order.push_back(1);
    }
    // Axis of the k-th block in `split`.
    const int64_t first_block = b.blocks_first ? 1 : 2;
    for (size_t k = 0; k < K; ++k) {
        split.push_back(in.shape[2 + k]);
        expected.push_back(in.shape[2 + k] * b.block);
        order.push_back(static_cast<int64_t>(K + 2 + k));
        order.push_back(first_block + static_cast<int64_t>(k));
    }
    dm::check_shape(args, args.outputs[0].shape, expected, "output");
    dm::permute(in.data, split, order, args.outputs[0].data, element_size(in.type));
}

// SpaceToDepth: each spatial axis Dk is split into [Dk/bs, bs]; the block axes join the channels,
// before them (blocks_first) or after them (depth_first).
void space_to_depth_kernel(const KernelArgs& args) {
    const Blocks b = blocks_of(args);
    const ConstTensorView& in = args.inputs[0];
    const size_t K = b.spatial;
    Shape split{in.shape[0], in.shape[1]}, expected{in.shape[0], in.shape[1]};
    std::vector<int64_t> blocks, spatial;
    for (size_t k = 0; k < K; ++k) {
        const int64_t dim = in.shape[2 + k];
        dm::check(args, dim % b.block == 0, "spatial dimensions are not divisible by block_size");
        split.push_back(dim / b.block);
        split.push_back(b.block);
        expected[1] *= b.block;
        expected.push_back(dim / b.block);
        spatial.push_back(static_cast<int64_t>(2 + 2 * k));
        blocks.push_back(static_cast<int64_t>(3 + 2 * k));
    }
    std::vector<int64_t> order{0};
    if (!b.blocks_first) order.push_back(1);
    order.insert(order.end(), blocks.begin(), blocks.end());
    if (b.blocks_first) order.push_back(1);
    order.insert(order.end(), spatial.begin(), spatial.end());
    dm::check_shape(args, args.outputs[0].shape, expected, "output");
    dm::permute(in.data, split, order, args.outputs[0].data, element_size(in.type));
}

}  // namespace

void register_permute_kernels(KernelRegistry& r) {
    r.add("Transpose", {"opset1"}, transpose_kernel);
    r.add("DepthToSpace", {"opset1"}, depth_to_space_kernel);
    r.add("SpaceToDepth", {"opset1"}, space_to_depth_kernel);
}

}  // namespace mosaic::reference
