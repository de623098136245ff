#include "kernels/kernel_args.hpp"

#include <algorithm>

#include <mosaic/sdk/status.hpp>

namespace mosaic::gpu_plugin {

std::vector<int64_t> strides_of(const Shape& shape) {
    std::vector<int64_t> s(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
    return s;
}

std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out) {
    std::vector<int64_t> s(out.size(), 0);
    const std::vector<int64_t> own = strides_of(shape);
    const size_t lead = out.size() - shape.size();
    for (size_t d = 0; d < shape.size(); ++d) s[lead + d] = shape[d] == 1 ? 0 : own[d];
    return s;
}

OperandIndex operand_index(const std::vector<int64_t>& strides, const Shape& out) {
    const std::vector<int64_t> own = strides_of(out);
    if (std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s == 0; })) return {OPERAND_SCALAR, 1};
    if (strides == own) return {OPERAND_SAME, 1};
    // Split at p: dims before p read with stride 0 and dims from p as the output lays them out
    // (i % inner), or dims before p as the output's divided by inner and dims from p with 0 (i / inner).
    for (size_t p = 1; p < out.size(); ++p) {
        int64_t inner = 1;
        for (size_t d = p; d < out.size(); ++d) inner *= out[d];
        bool trailing = true, leading = true;
        for (size_t d = 0; d < out.size(); ++d) {
            const bool any = out[d] == 1;  // a dimension of 1 is never stepped along
            trailing = trailing && (any || (d < p ? strides[d] == 0 : strides[d] == own[d]));
            leading = leading && (any || (d < p ? strides[d] == own[d] / inner : strides[d] == 0));
        }
        if (trailing) return {OPERAND_TRAILING, static_cast<cl_int>(inner)};
        if (leading) return {OPERAND_LEADING, static_cast<cl_int>(inner)};
    }
    return {OPERAND_WALK, 1};
}

Walk make_walk(const Shape& dims, const std::vector<int64_t>& in, const std::vector<int64_t>& other,
               const std::vector<int64_t>& out) {
    if (dims.size() > kMaxRank)
        throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, "GPU kernels walk at most " + std::to_string(kMaxRank) + " dims");
    Walk w;
    w.rank = static_cast<cl_int>(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
        w.dims[d] = static_cast<cl_int>(dims[d]);
        w.in_strides[d] = d < in.size() ? static_cast<cl_int>(in[d]) : 0;
        w.other_strides[d] = d < other.size() ? static_cast<cl_int>(other[d]) : 0;
        w.out_strides[d] = d < out.size() ? static_cast<cl_int>(out[d]) : 0;
    }
    if (dims.empty()) {  // a scalar: one element
        w.rank = 1;
        w.dims[0] = 1;
    }
    return w;
}

}  // namespace mosaic::gpu_plugin
