// Reference kernel of Col2Im-15: each column (a block position, row-major over the blocks that fit
// the padded image) holds C * kh * kw values; each is added to the image pixel its channel and
// kernel offset reach, those in the padding dropped. Sums in double.
#include "nn_kernels.hpp"

#include <vector>

namespace mosaic::reference::nn {

namespace {

template <typename T>
void col2im(const KernelArgs& args, const std::vector<int64_t>& kernel) {
    const Shape& data = args.inputs[0].shape;
    const Shape& out = args.outputs[0].shape;
    const bool batched = data.size() == 3;
    const int64_t batch = batched ? data[0] : 1, rows = data[batched ? 1 : 0], count = data[batched ? 2 : 1];
    const int64_t height = out[out.size() - 2], width = out[out.size() - 1];
    const std::vector<int64_t> strides = list_attr(args, "strides", 2, 1);
    const std::vector<int64_t> dilations = list_attr(args, "dilations", 2, 1);
    const std::vector<int64_t> pads = list_attr(args, "pads_begin", 2, 0);
    const std::vector<int64_t> pads_end = list_attr(args, "pads_end", 2, 0);
    const int64_t blocks_w = (width + pads[1] + pads_end[1] - (dilations[1] * (kernel[1] - 1) + 1)) / strides[1] + 1;
    if (blocks_w <= 0 || count % blocks_w != 0)
        throw std::runtime_error("Col2Im: " + std::to_string(count) + " blocks do not fill rows of " + std::to_string(blocks_w));
    const T* x = args.inputs[0].as<T>();
    T* y = args.outputs[0].as<T>();
    std::vector<double> sum(static_cast<size_t>(shape_size(out)), 0.0);
    const int64_t channels = rows / (kernel[0] * kernel[1]);
    for (int64_t n = 0; n < batch; ++n)
        for (int64_t row = 0; row < rows; ++row) {
            const int64_t c = row / (kernel[0] * kernel[1]), kh = row / kernel[1] % kernel[0], kw = row % kernel[1];
            for (int64_t l = 0; l < count; ++l) {
                const int64_t iy = l / blocks_w * strides[0] - pads[0] + kh * dilations[0];
                const int64_t ix = l % blocks_w * strides[1] - pads[1] + kw * dilations[1];
                if (iy < 0 || iy >= height || ix < 0 || ix >= width) continue;
                sum[static_cast<size_t>(((n * channels + c) * height + iy) * width + ix)] +=
                    static_cast<double>(x[(n * rows + row) * count + l]);
            }
        }
    for (size_t i = 0; i < sum.size(); ++i) y[i] = static_cast<T>(sum[i]);
}

void col2im_15(const KernelArgs& args) {
    const std::vector<int64_t> kernel = read_ints(args.inputs.at(2));
    int64_t area = 0;
    if (kernel.size() != 2 || kernel[0] <= 0 || kernel[1] <= 0 || __builtin_mul_overflow(kernel[0], kernel[1], &area))
        throw std::runtime_error("Col2Im: kernel_size must be 2 positive values whose product fits in 64 bits");
    dispatch_numeric(args, args.inputs[0].type, [&](auto tag) { col2im<decltype(tag)>(args, kernel); });
}

}  // namespace

void register_col2im_kernels(KernelRegistry& r) { r.add("Col2Im", {"opset15"}, col2im_15); }

}  // namespace mosaic::reference::nn
