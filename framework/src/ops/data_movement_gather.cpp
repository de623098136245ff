// Schema of Gather: slices of the data picked by indices along an axis, with optional batch dims.
// Gather-1 has no batch_dims; Gather-7 adds it; Gather-8 also allows negative indices (the shapes
// are the same, only the kernel differs).
#include "ops/data_movement_ops.hpp"

#include <algorithm>

namespace mosaic::ops {

namespace {

std::vector<PortInfo> infer_gather(const InferContext& ctx, bool has_batch_dims) {
    const Shape& data = ctx.input_shape(0);
    const Shape& indices = ctx.input_shape(1);
    dm::require_integer(ctx, 1, "indices");
    const int64_t data_rank = static_cast<int64_t>(data.size());
    const int64_t indices_rank = static_cast<int64_t>(indices.size());
    ctx.check(data_rank > 0, "cannot gather from a scalar");
    const int64_t axis = normalize_axis(ctx, dm::const_scalar(ctx, 2, "axis"), data_rank);

    int64_t batch_dims = 0;
    if (has_batch_dims) {
        const int64_t raw = ctx.attrs().get_int("batch_dims", 0);
        const int64_t limit = std::min(data_rank, indices_rank);
        ctx.check(raw >= -limit && raw <= limit,
                  "batch_dims " + std::to_string(raw) + " is out of range [" + std::to_string(-limit) + ", " +
                      std::to_string(limit) + "] for data shape " + to_string(data) + " and indices shape " +
                      to_string(indices));
        batch_dims = raw < 0 ? raw + indices_rank : raw;
        ctx.check(batch_dims <= axis, "batch_dims " + std::to_string(raw) + " must not be greater than axis " +
                                          std::to_string(axis));
        for (int64_t d = 0; d < batch_dims; ++d)
            ctx.check(data[d] < 0 || indices[d] < 0 || data[d] == indices[d],
                      "the first " + std::to_string(batch_dims) + " (batch) dimensions of data shape " +
                          to_string(data) + " and indices shape " + to_string(indices) + " differ");
    }

    Shape out(data.begin(), data.begin() + axis);
    out.insert(out.end(), indices.begin() + batch_dims, indices.end());
    out.insert(out.end(), data.begin() + axis + 1, data.end());
    return {{ctx.input_type(0), out}};
}

}  // namespace

void register_gather_ops(OpRegistry& r) {
    r.add({"Gather", {"opset1"}, 3, 3, [](const InferContext& ctx) { return infer_gather(ctx, false); }});
    r.add({"Gather", {"opset7", "opset8"}, 3, 3, [](const InferContext& ctx) { return infer_gather(ctx, true); }});
}

}  // namespace mosaic::ops
