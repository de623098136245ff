// Reference kernel of ROIAlign-3 and ROIAlign-9. Each output bin averages (or takes the largest
// of) sampling_ratio^2 bilinear samples spread evenly over the bin; sampling_ratio 0 means
// ceil(bin size) samples per axis. A sample more than one pixel outside the feature map counts as
// 0; one within a pixel of the edge is clamped onto it.
#include "nn_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mosaic::reference::nn {

namespace {

// The four pixels a bilinear sample reads (offsets into one channel) and their weights.
template <typename T>
struct Sample {
    int64_t offset[4] = {0, 0, 0, 0};
    T weight[4] = {0, 0, 0, 0};
};

template <typename T>
Sample<T> bilinear_sample(T y, T x, int64_t H, int64_t W) {
    Sample<T> s;
    if (y < -1 || y > static_cast<T>(H) || x < -1 || x > static_cast<T>(W)) return s;
    y = std::max<T>(y, 0);
    x = std::max<T>(x, 0);
    auto y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x);
    int64_t y_high = y_low + 1, x_high = x_low + 1;
    if (y_low >= H - 1) y_low = y_high = H - 1, y = static_cast<T>(y_low);
    if (x_low >= W - 1) x_low = x_high = W - 1, x = static_cast<T>(x_low);
    const T ly = y - static_cast<T>(y_low), lx = x - static_cast<T>(x_low);
    const T hy = 1 - ly, hx = 1 - lx;
    s.offset[0] = y_low * W + x_low, s.weight[0] = hy * hx;
    s.offset[1] = y_low * W + x_high, s.weight[1] = hy * lx;
    s.offset[2] = y_high * W + x_low, s.weight[2] = ly * hx;
    s.offset[3] = y_high * W + x_high, s.weight[3] = ly * lx;
    return s;
}

// The samples of one ROI, its bins times the sampling grid, are at most 2^26. A sampling_ratio of
// INT64_MAX (found by the reference_plugin fuzzer: the grid's size overflowed 64 bits), or an ROI so
// large that ceil(bin size) is (the adaptive grid), is refused before the grid is multiplied out or
// its samples take the memory.
constexpr int64_t kMaxRoiSamples = int64_t{1} << 26;

// The sampling grid along one axis: sampling_ratio points, or ceil(bin size) where it is 0.
int64_t grid_points(int64_t sampling_ratio, double bin) {
    if (sampling_ratio > 0) return std::min(sampling_ratio, kMaxRoiSamples + 1);
    const double points = std::ceil(bin);
    if (!(points <= static_cast<double>(kMaxRoiSamples))) return kMaxRoiSamples + 1;  // NaN and infinity too
    return std::max<int64_t>(static_cast<int64_t>(points), 0);
}

template <typename T>
void roi_align(const KernelArgs& args) {
    // An empty output (0 channels and pooled sizes of INT64_MAX, whose product overflowed: found by
    // fuzzing) never reaches here: run_reference_kernel runs no kernel for outputs that hold nothing.
    const Shape& in = args.inputs[0].shape;
    const int64_t C = in[1], H = in[2], W = in[3];
    const int64_t pooled_h = args.attrs.get_int("pooled_h"), pooled_w = args.attrs.get_int("pooled_w");
    const int64_t sampling_ratio = args.attrs.get_int("sampling_ratio");
    const auto scale = static_cast<T>(args.attrs.get_float("spatial_scale"));
    const bool max_mode = lower_attr(args, "mode", "avg") == "max";
    const std::string aligned = lower_attr(args, "aligned_mode", "asymmetric");
    // The ROI's corners in feature-map pixels: (corner + offset_src) * scale + offset_dst.
    const T offset_src = aligned == "half_pixel" ? T(0.5) : T(0);
    const T offset_dst = aligned == "asymmetric" ? T(0) : T(-0.5);

    const std::vector<double> rois = read_floats(args.inputs[1]);
    const std::vector<int64_t> batch = read_ints(args.inputs[2]);
    const T* data = args.inputs[0].as<T>();
    T* out = args.outputs[0].as<T>();
    const auto num_rois = static_cast<int64_t>(batch.size());
    std::vector<Sample<T>> samples;

    for (int64_t r = 0; r < num_rois; ++r) {
        if (batch[r] < 0 || batch[r] >= in[0])
            throw std::runtime_error("ROIAlign: batch index " + std::to_string(batch[r]) + " of ROI " + std::to_string(r) +
                                     " is outside the data's batch of " + std::to_string(in[0]));
        if (H == 0 || W == 0) {
            // An empty feature map has no pixel to sample, not even the edge a sample is clamped
            // onto (a read before the data, found by fuzzing): every sample counts as 0.
            out = std::fill_n(out, C * pooled_h * pooled_w, T(0));
            continue;
        }
        const double* roi = rois.data() + 4 * r;
        const T x1 = (static_cast<T>(roi[0]) + offset_src) * scale + offset_dst;
        const T y1 = (static_cast<T>(roi[1]) + offset_src) * scale + offset_dst;
        const T x2 = (static_cast<T>(roi[2]) + offset_src) * scale + offset_dst;
        const T y2 = (static_cast<T>(roi[3]) + offset_src) * scale + offset_dst;
        T roi_w = x2 - x1, roi_h = y2 - y1;
        if (aligned == "asymmetric") roi_w = std::max<T>(roi_w, 1), roi_h = std::max<T>(roi_h, 1);
        const T bin_w = roi_w / static_cast<T>(pooled_w), bin_h = roi_h / static_cast<T>(pooled_h);
        const int64_t grid_w = grid_points(sampling_ratio, static_cast<double>(bin_w));
        const int64_t grid_h = grid_points(sampling_ratio, static_cast<double>(bin_h));
        // Each factor is at most 2^26 + 1 here, so the products cannot overflow.
        if (grid_w * grid_h > kMaxRoiSamples / std::max<int64_t>(pooled_h * pooled_w, 1))
            throw std::runtime_error(
                "ROIAlign: ROI " + std::to_string(r) + " would take " +
                (sampling_ratio > 0 ? "sampling_ratio " + std::to_string(sampling_ratio) + " squared"
                                    : "ceil(bin size) " + std::to_string(grid_h) + " x " + std::to_string(grid_w)) +
                " samples in each of its " + std::to_string(pooled_h) + " x " + std::to_string(pooled_w) +
                " bins, more than 2^26 in all; give sampling_ratio a few points (0 samples ceil(bin size)), and ROIs "
                "within the feature map");
        const int64_t count = std::max<int64_t>(grid_w * grid_h, 1);

        // The samples are the same for every channel.
        samples.clear();
        for (int64_t ph = 0; ph < pooled_h; ++ph)
            for (int64_t pw = 0; pw < pooled_w; ++pw)
                for (int64_t iy = 0; iy < grid_h; ++iy)
                    for (int64_t ix = 0; ix < grid_w; ++ix) {
                        const T y = y1 + static_cast<T>(ph) * bin_h +
                                    (static_cast<T>(iy) + T(0.5)) * bin_h / static_cast<T>(grid_h);
                        const T x = x1 + static_cast<T>(pw) * bin_w +
                                    (static_cast<T>(ix) + T(0.5)) * bin_w / static_cast<T>(grid_w);
                        samples.push_back(bilinear_sample(y, x, H, W));
                    }

        for (int64_t c = 0; c < C; ++c) {
            const T* channel = data + (batch[r] * C + c) * H * W;
            const Sample<T>* s = samples.data();
            for (int64_t bin = 0; bin < pooled_h * pooled_w; ++bin) {
                T sum = 0, largest = std::numeric_limits<T>::lowest();
                for (int64_t k = 0; k < grid_h * grid_w; ++k, ++s) {
                    T v = 0;
                    for (int j = 0; j < 4; ++j) v += s->weight[j] * channel[s->offset[j]];
                    sum += v;
                    largest = std::max(largest, v);
                }
                *out++ = max_mode ? (grid_h * grid_w > 0 ? largest : T(0)) : sum / static_cast<T>(count);
            }
        }
    }
}

void roi_align_kernel(const KernelArgs& args) {
    dispatch_floating(args, args.inputs[0].type, [&](auto tag) { roi_align<decltype(tag)>(args); });
}

}  // namespace

void register_roi_align_kernels(KernelRegistry& r) { r.add("ROIAlign", {"opset3", "opset9"}, roi_align_kernel); }

}  // namespace mosaic::reference::nn
