// Schemas of Transpose, DepthToSpace and SpaceToDepth: ops that reorder the data's dimensions.
#include "ops/data_movement_ops.hpp"

namespace mosaic::ops {

namespace {

std::vector<PortInfo> infer_transpose(const InferContext& ctx) {
    const Shape& in = ctx.input_shape(0);
    const int64_t rank = static_cast<int64_t>(in.size());
    if (dm::computed(ctx, 1)) {
        const size_t length = dm::computed_list_length(ctx, 1, "order");
        ctx.check(length == 0 || length == in.size(), "order has " + std::to_string(length) + " entries but the input shape " +
                                                          to_string(in) + " has rank " + std::to_string(rank));
        return {{ctx.input_type(0), Shape(in.size(), kDynamicDim)}};
    }
    std::vector<int64_t> order = dm::const_list(ctx, 1, "order", false);
    if (order.empty())
        for (int64_t d = rank - 1; d >= 0; --d) order.push_back(d);
    ctx.check(static_cast<int64_t>(order.size()) == rank,
              "order " + dm::list_text(order) + " has " + std::to_string(order.size()) +
                  " entries but the input shape " + to_string(in) + " has rank " + std::to_string(rank));
    std::vector<bool> seen(in.size(), false);
    Shape out;
    for (int64_t axis : order) {
        ctx.check(axis >= 0 && axis < rank && !seen[axis],
                  "order " + dm::list_text(order) + " is not a permutation of the " + std::to_string(rank) +
                      " input axes");
        seen[axis] = true;
        out.push_back(in[axis]);
    }
    return {{ctx.input_type(0), out}};
}

// Shared checks of DepthToSpace and SpaceToDepth: the mode, the block size and the input rank.
int64_t block_size(const InferContext& ctx) {
    const std::string& mode = ctx.attrs().get_string("mode");
    ctx.check(mode == "blocks_first" || mode == "depth_first",
              "mode must be blocks_first or depth_first, got '" + mode + "'");
    const int64_t block = ctx.attrs().get_int("block_size", 1);
    ctx.check(block > 0, "block_size must be positive, got " + std::to_string(block));
    const Shape& in = ctx.input_shape(0);
    ctx.check(in.size() >= 3, "input must have rank 3 or more ([N, C, D1, ...]), got shape " + to_string(in));
    return block;
}

// block_size to the power of the spatial rank: how many channels one output element gathers. The
// attribute may be anything (INT64_MAX), so an overflow is refused rather than wrapped.
int64_t block_volume(const InferContext& ctx, int64_t block, const Shape& in) {
    int64_t volume = 1;
    for (size_t d = 2; d < in.size(); ++d)
        ctx.check(!__builtin_mul_overflow(volume, block, &volume),
                  "block_size " + std::to_string(block) + " over the " + std::to_string(in.size() - 2) +
                      " spatial axes of shape " + to_string(in) + " overflows 64 bits");
    return volume;
}

std::vector<PortInfo> infer_depth_to_space(const InferContext& ctx) {
    const int64_t block = block_size(ctx);
    const Shape& in = ctx.input_shape(0);
    const int64_t divisor = block_volume(ctx, block, in);
    Shape out = in;
    if (in[1] >= 0) {
        ctx.check(in[1] % divisor == 0, "channels " + std::to_string(in[1]) + " of shape " + to_string(in) +
                                            " are not divisible by block_size^" + std::to_string(in.size() - 2) +
                                            " = " + std::to_string(divisor));
        out[1] = in[1] / divisor;
    }
    for (size_t d = 2; d < in.size(); ++d) out[d] = dm::dim_mul(in[d], block);
    return {{ctx.input_type(0), out}};
}

std::vector<PortInfo> infer_space_to_depth(const InferContext& ctx) {
    const int64_t block = block_size(ctx);
    const Shape& in = ctx.input_shape(0);
    Shape out = in;
    const int64_t multiplier = block_volume(ctx, block, in);
    for (size_t d = 2; d < in.size(); ++d) {
        if (in[d] < 0) continue;
        ctx.check(in[d] % block == 0, "spatial dimension " + std::to_string(d) + " of shape " + to_string(in) +
                                          " is not divisible by block_size " + std::to_string(block));
        out[d] = in[d] / block;
    }
    out[1] = dm::dim_mul(in[1], multiplier);
    return {{ctx.input_type(0), out}};
}

}  // namespace

void register_permute_ops(OpRegistry& r) {
    r.add({"Transpose", {"opset1"}, 2, 2, infer_transpose});
    r.add({"DepthToSpace", {"opset1"}, 1, 1, infer_depth_to_space});
    r.add({"SpaceToDepth", {"opset1"}, 1, 1, infer_space_to_depth});
}

}  // namespace mosaic::ops
