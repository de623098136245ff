// Schema of Col2Im-15: the columns an im2col would take out of an image, [N, C * kh * kw, L] (or
// unbatched [C * kh * kw, L]), summed back into images [N, C, H, W] (overlapping blocks add up):
// torch's fold, as OpenVINO converts MobileViTV2 and ONNX writes its Col2Im-18.
#include "ops/nn_ops.hpp"

namespace mosaic::ops {

namespace {

// A 2-element list of positive sizes given by input `i`.
std::vector<int64_t> size_pair(const InferContext& ctx, size_t i, const char* what) {
    nn::check_integer(ctx, i, what);
    nn::check_rank(ctx, i, what, 1, 1);
    const std::vector<int64_t> v = ctx.const_ints(i, what);
    ctx.check(v.size() == 2, std::string(what) + " must hold 2 values (height, width), got " + std::to_string(v.size()));
    for (int64_t d : v) ctx.check(d > 0, std::string(what) + " must be positive, got " + std::to_string(d));
    return v;
}

std::vector<PortInfo> infer_col2im(const InferContext& ctx) {
    nn::check_numeric(ctx, 0, "data");
    nn::check_rank(ctx, 0, "data", 2, 3);
    const std::vector<int64_t> kernel = size_pair(ctx, 2, "kernel_size");
    const std::vector<int64_t> strides = nn::spatial_attr(ctx, "strides", 2, 1, 1);
    const std::vector<int64_t> dilations = nn::spatial_attr(ctx, "dilations", 2, 1, 1);
    const std::vector<int64_t> pads_begin = nn::spatial_attr(ctx, "pads_begin", 2, 0, 0);
    const std::vector<int64_t> pads_end = nn::spatial_attr(ctx, "pads_end", 2, 0, 0);
    // An output size computed when the model runs (OpenVINO converts torch's fold of a dynamic map
    // with one read from its shape) leaves the image dynamic until the shapes are set.
    const bool computed = !ctx.input_value(1);
    const std::vector<int64_t> image = computed ? std::vector<int64_t>(2, kDynamicDim) : size_pair(ctx, 1, "output_size");
    int64_t blocks = computed ? kDynamicDim : 1;
    for (size_t i = 0; i < 2 && !computed; ++i) {
        const int64_t along = nn::window_output_dim(ctx, image[i], pads_begin[i], pads_end[i], kernel[i], strides[i],
                                                    dilations[i], nn::Rounding::floor, i);
        ctx.check(!__builtin_mul_overflow(blocks, along, &blocks),
                  "the number of blocks of output_size " + std::to_string(image[0]) + "x" + std::to_string(image[1]) +
                      " does not fit in 64 bits");
    }
    const Shape& data = ctx.input_shape(0);
    const bool batched = data.size() == 3;
    const int64_t columns = data[batched ? 1 : 0], count = data[batched ? 2 : 1];
    int64_t block_size = 0;
    ctx.check(!__builtin_mul_overflow(kernel[0], kernel[1], &block_size),
              "kernel_size " + std::to_string(kernel[0]) + "x" + std::to_string(kernel[1]) + " does not fit in 64 bits");
    ctx.check(columns < 0 || columns % block_size == 0,
              "data's " + std::to_string(columns) + " rows are not a multiple of the kernel's " +
                  std::to_string(block_size) + " elements (C * kernel height * kernel width)");
    ctx.check(count < 0 || blocks < 0 || count == blocks, "data holds " + std::to_string(count) + " blocks, but the image " +
                                                std::to_string(image[0]) + "x" + std::to_string(image[1]) +
                                                " with this kernel, strides, dilations and pads has " +
                                                std::to_string(blocks));
    Shape out;
    if (batched) out.push_back(data[0]);
    out.push_back(columns < 0 ? kDynamicDim : columns / block_size);
    out.insert(out.end(), image.begin(), image.end());
    return {{ctx.input_type(0), out}};
}

}  // namespace

void register_nn_col2im_ops(OpRegistry& r) { r.add({"Col2Im", {"opset15"}, 3, 3, infer_col2im}); }

}  // namespace mosaic::ops
