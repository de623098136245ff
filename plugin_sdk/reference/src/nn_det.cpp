// Reference kernel of Det: each matrix's determinant by LU decomposition with partial pivoting,
// computed in double (f16/bf16 arrive widened to f32). A zero pivot means a singular matrix, whose
// determinant is 0; NaN in a matrix makes its determinant NaN.
#include "nn_kernels.hpp"

#include <cmath>
#include <utility>
#include <vector>

namespace mosaic::reference::nn {

namespace {

double determinant(std::vector<double>& a, int64_t m) {
    double det = 1.0;
    for (int64_t k = 0; k < m; ++k) {
        int64_t pivot = k;
        for (int64_t i = k + 1; i < m; ++i)
            if (std::fabs(a[i * m + k]) > std::fabs(a[pivot * m + k])) pivot = i;
        const double p = a[pivot * m + k];
        if (std::isnan(p)) return p;
        if (p == 0.0) return 0.0;
        if (pivot != k) {
            for (int64_t j = 0; j < m; ++j) std::swap(a[k * m + j], a[pivot * m + j]);
            det = -det;
        }
        det *= p;
        for (int64_t i = k + 1; i < m; ++i) {
            const double f = a[i * m + k] / p;
            for (int64_t j = k + 1; j < m; ++j) a[i * m + j] -= f * a[k * m + j];
        }
    }
    return det;
}

void det_kernel(const KernelArgs& args) {
    if (args.inputs.size() != 1 || args.outputs.size() != 1)
        throw std::runtime_error("Det: expected 1 input and 1 output");
    const ConstTensorView& x = args.inputs[0];
    if (x.shape.size() < 2 || x.shape[x.shape.size() - 1] != x.shape[x.shape.size() - 2])
        throw std::runtime_error("Det: input shape " + to_string(x.shape) + " does not end in square matrices");
    const int64_t m = x.shape.back();
    const int64_t count = args.outputs[0].size();
    dispatch_floating(args, x.type, [&](auto tag) {
        using T = decltype(tag);
        const T* in = x.as<T>();
        T* out = args.outputs[0].as<T>();
        std::vector<double> a(static_cast<size_t>(m * m));
        for (int64_t b = 0; b < count; ++b) {
            for (int64_t i = 0; i < m * m; ++i) a[i] = static_cast<double>(in[b * m * m + i]);
            out[b] = static_cast<T>(determinant(a, m));
        }
    });
}

}  // namespace

void register_det_kernels(KernelRegistry& r) { r.add("Det", {"mosaic1"}, det_kernel); }

}  // namespace mosaic::reference::nn
