// Schema of GridSample-9: samples data [N, C, H, W] at the normalized (x, y) positions of grid
// [N, H_out, W_out, 2], giving [N, C, H_out, W_out].
#include "ops/nn_ops.hpp"

namespace mosaic::ops {

namespace {

std::vector<PortInfo> infer_grid_sample(const InferContext& ctx) {
    nn::check_numeric(ctx, 0, "data");
    nn::check_floating(ctx, 1, "grid");
    nn::check_rank(ctx, 0, "data", 4, 4);
    nn::check_rank(ctx, 1, "grid", 4, 4);
    ctx.attrs().get_bool("align_corners", false);
    nn::choice_attr(ctx, "mode", {"bilinear", "bicubic", "nearest"}, "bilinear");
    nn::choice_attr(ctx, "padding_mode", {"zeros", "border", "reflection"}, "zeros");
    const Shape& data = ctx.input_shape(0);
    const Shape& grid = ctx.input_shape(1);
    ctx.check(grid[3] < 0 || grid[3] == 2,
              "grid shape " + to_string(grid) + " must end in 2 (an x and a y per output position)");
    ctx.check(data[0] < 0 || grid[0] < 0 || data[0] == grid[0],
              "grid shape " + to_string(grid) + " and data shape " + to_string(data) + " differ in batch size");
    return {{ctx.input_type(0), {data[0] >= 0 ? data[0] : grid[0], data[1], grid[1], grid[2]}}};
}

}  // namespace

void register_nn_grid_sample_ops(OpRegistry& r) { r.add({"GridSample", {"opset9"}, 2, 2, infer_grid_sample}); }

}  // namespace mosaic::ops
