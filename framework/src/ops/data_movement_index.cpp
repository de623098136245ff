// Schemas of the indexing ops that read, place or generate elements by position: GatherND (opset5,
// opset8), GatherElements, OneHot, ReverseSequence, Eye, Roll, NonZero, Unique and CumSum.
#include "ops/data_movement_ops.hpp"

#include <mosaic/reference/unique.hpp>

#include <algorithm>
#include <initializer_list>
#include <optional>

namespace mosaic::ops {

namespace {

bool is_scalar_like(const Shape& shape) { return shape.empty() || (shape.size() == 1 && shape[0] == 1); }

// Fails unless input i is a scalar or a one-element 1D tensor.
void require_scalar(const InferContext& ctx, size_t i, std::string_view what) {
    ctx.check(is_scalar_like(ctx.input_shape(i)), "input " + std::to_string(i) + " (" + std::string(what) +
                                                      ") must be a scalar, got shape " + to_string(ctx.input_shape(i)));
}

// Fails unless input i is a scalar or a 1D tensor.
void require_scalar_or_1d(const InferContext& ctx, size_t i, std::string_view what) {
    ctx.check(ctx.input_shape(i).size() <= 1, "input " + std::to_string(i) + " (" + std::string(what) +
                                                  ") must be a scalar or a 1D tensor, got shape " +
                                                  to_string(ctx.input_shape(i)));
}

// Element type from an `output_type` attribute that must be one of `allowed` (empty: any but undefined).
ElementType output_type_attr(const InferContext& ctx, const std::string& fallback,
                             std::initializer_list<ElementType> allowed) {
    const std::string name = fallback.empty() ? ctx.attrs().get_string("output_type")
                                              : ctx.attrs().get_string("output_type", fallback);
    const ElementType type = element_type_from_string(name);
    const bool ok = type != ElementType::undefined &&
                    (allowed.size() == 0 || std::find(allowed.begin(), allowed.end(), type) != allowed.end());
    std::string choices;
    for (ElementType t : allowed) choices += std::string(choices.empty() ? "" : " or ") + to_string(t);
    ctx.check(ok, "output_type '" + name + "' is not supported" + (choices.empty() ? "" : "; expected " + choices));
    return type;
}

// GatherND: batch dims are merged (opset8) or, for opset5, fused into one leading dim.
std::vector<PortInfo> infer_gather_nd(const InferContext& ctx, bool fuse_batch) {
    dm::require_integer(ctx, 1, "indices");
    const Shape& data = ctx.input_shape(0);
    const Shape& indices = ctx.input_shape(1);
    const int64_t batch_dims = ctx.attrs().get_int("batch_dims", 0);
    const int64_t data_rank = static_cast<int64_t>(data.size());
    const int64_t indices_rank = static_cast<int64_t>(indices.size());
    ctx.check(data_rank > 0 && indices_rank > 0, "data " + to_string(data) + " and indices " + to_string(indices) +
                                                     " must both have rank >= 1");
    ctx.check(batch_dims >= 0 && batch_dims < std::min(data_rank, indices_rank),
              "batch_dims " + std::to_string(batch_dims) + " must be in [0, min(rank(data), rank(indices))) = [0, " +
                  std::to_string(std::min(data_rank, indices_rank)) + ")");
    const int64_t k = indices.back();
    ctx.check(k >= 0, "the last dimension of indices " + to_string(indices) +
                          " must be static: it says how many data axes each index addresses");
    ctx.check(batch_dims + k <= data_rank,
              "index tuples of length " + std::to_string(k) + " (the last dimension of indices " + to_string(indices) +
                  ") address more than the " + std::to_string(data_rank - batch_dims) +
                  " non-batch axes of data " + to_string(data));

    Shape out;
    for (int64_t d = 0; d < batch_dims; ++d) {
        ctx.check(data[d] < 0 || indices[d] < 0 || data[d] == indices[d],
                  "batch dimension " + std::to_string(d) + " differs between data " + to_string(data) +
                      " and indices " + to_string(indices));
        out.push_back(data[d] >= 0 ? data[d] : indices[d]);
    }
    if (fuse_batch && batch_dims > 1) {
        int64_t fused = 1;
        for (int64_t dim : out) fused = dm::dim_mul(fused, dim);
        out = {fused};
    }
    out.insert(out.end(), indices.begin() + batch_dims, indices.end() - 1);
    out.insert(out.end(), data.begin() + batch_dims + k, data.end());
    return {{ctx.input_type(0), out}};
}

std::vector<PortInfo> infer_gather_elements(const InferContext& ctx) {
    dm::require_integer(ctx, 1, "indices");
    const Shape& data = ctx.input_shape(0);
    const Shape& indices = ctx.input_shape(1);
    const int64_t rank = static_cast<int64_t>(data.size());
    ctx.check(rank > 0, "data must have rank >= 1, got a scalar");
    ctx.check(indices.size() == data.size(),
              "indices " + to_string(indices) + " must have the rank of data " + to_string(data));
    const int64_t axis = normalize_axis(ctx, ctx.attrs().get_int("axis"), rank);
    for (int64_t d = 0; d < rank; ++d)
        ctx.check(d == axis || data[d] < 0 || indices[d] < 0 || data[d] == indices[d],
                  "indices " + to_string(indices) + " and data " + to_string(data) + " differ along axis " +
                      std::to_string(d) + "; only the gather axis " + std::to_string(axis) + " may differ");
    return {{ctx.input_type(0), indices}};
}

std::vector<PortInfo> infer_one_hot(const InferContext& ctx) {
    dm::require_integer(ctx, 0, "indices");
    // A depth computed when the model runs (the length of a dynamic axis): a dynamic dimension.
    const int64_t depth = dm::computed(ctx, 1) ? kDynamicDim : dm::const_scalar(ctx, 1, "depth");
    ctx.check(depth >= 0 || dm::computed(ctx, 1), "depth must not be negative, got " + std::to_string(depth));
    require_scalar(ctx, 2, "on_value");
    require_scalar(ctx, 3, "off_value");
    ctx.check(ctx.input_type(2) == ctx.input_type(3), "on_value has element type " +
                                                          std::string(to_string(ctx.input_type(2))) + " but off_value has " +
                                                          to_string(ctx.input_type(3)) + "; they must match");
    const std::string mode = ctx.attrs().get_string("negative_indices_mode", "ignore-negative");
    ctx.check(mode == "ignore-negative" || mode == "normalize",
              "negative_indices_mode '" + mode + "' is not supported; expected ignore-negative or normalize");
    const Shape& indices = ctx.input_shape(0);
    const int64_t out_rank = static_cast<int64_t>(indices.size()) + 1;
    const int64_t axis = normalize_axis(ctx, ctx.attrs().get_int("axis"), out_rank);
    Shape out = indices;
    out.insert(out.begin() + axis, depth);
    return {{ctx.input_type(2), out}};
}

std::vector<PortInfo> infer_reverse_sequence(const InferContext& ctx) {
    const Shape& data = ctx.input_shape(0);
    const Shape& lengths = ctx.input_shape(1);
    const int64_t rank = static_cast<int64_t>(data.size());
    ctx.check(rank >= 2, "data must have rank >= 2, got shape " + to_string(data));
    const ElementType length_type = ctx.input_type(1);
    ctx.check(length_type != ElementType::boolean && length_type != ElementType::undefined,
              "seq_lengths must have a numeric element type, got " + std::string(to_string(length_type)));
    const int64_t batch_axis = normalize_axis(ctx, ctx.attrs().get_int("batch_axis", 0), rank, "batch_axis");
    const int64_t seq_axis = normalize_axis(ctx, ctx.attrs().get_int("seq_axis", 1), rank, "seq_axis");
    ctx.check(batch_axis != seq_axis, "batch_axis and seq_axis both name axis " + std::to_string(seq_axis));
    ctx.check(lengths.size() == 1, "seq_lengths must be a 1D tensor, got shape " + to_string(lengths));
    ctx.check(lengths[0] < 0 || data[batch_axis] < 0 || lengths[0] == data[batch_axis],
              "seq_lengths has " + std::to_string(lengths[0]) + " values but data " + to_string(data) + " has " +
                  std::to_string(data[batch_axis]) + " batches along batch_axis " + std::to_string(batch_axis));
    return {{ctx.input_type(0), data}};
}

// Eye's rows and columns computed when the model runs (EyeLike of a tensor of dynamic shape reads
// them from ShapeOf) leave those dimensions dynamic until the shape is known.
std::vector<PortInfo> infer_eye(const InferContext& ctx) {
    const ElementType type = output_type_attr(ctx, "", {});
    for (size_t i : {size_t{0}, size_t{1}}) {
        dm::require_integer(ctx, i, i == 0 ? "num_rows" : "num_columns");
        require_scalar(ctx, i, i == 0 ? "num_rows" : "num_columns");
    }
    const int64_t rows = ctx.input_value(0) ? dm::const_scalar(ctx, 0, "num_rows") : kDynamicDim;
    const int64_t columns = ctx.input_value(1) ? dm::const_scalar(ctx, 1, "num_columns") : kDynamicDim;
    ctx.check((rows >= 0 || !ctx.input_value(0)) && (columns >= 0 || !ctx.input_value(1)),
              "num_rows (" + std::to_string(rows) + ") and num_columns (" + std::to_string(columns) +
                  ") must not be negative");
    dm::require_integer(ctx, 2, "diagonal_index");
    require_scalar(ctx, 2, "diagonal_index");
    Shape out;
    if (ctx.input_count() > 3) {
        out = dm::const_list(ctx, 3, "batch_shape", false);
        for (int64_t d : out)
            ctx.check(d >= 0, "batch_shape " + dm::list_text(out) + " must not contain negative values");
    }
    out.push_back(rows);
    out.push_back(columns);
    return {{type, out}};
}

std::vector<PortInfo> infer_roll(const InferContext& ctx) {
    dm::require_integer(ctx, 1, "shift");
    dm::require_integer(ctx, 2, "axes");
    require_scalar_or_1d(ctx, 1, "shift");
    require_scalar_or_1d(ctx, 2, "axes");
    const Shape& data = ctx.input_shape(0);
    const Shape& shift = ctx.input_shape(1);
    const Shape& axes = ctx.input_shape(2);
    ctx.check(!data.empty(), "data must have rank >= 1, got a scalar");
    // A scalar shift applies to every axis; a 1D one pairs with the axes one to one.
    ctx.check(shift.empty() || axes.empty() || shift[0] < 0 || axes[0] < 0 || shift[0] == axes[0],
              "shift " + to_string(shift) + " and axes " + to_string(axes) + " must have the same length");
    ctx.check(!(axes.empty() && shift.size() == 1 && shift[0] > 1),
              "a scalar axes takes a scalar or one-element shift, got shift shape " + to_string(shift));
    if (ctx.input_value(2))
        for (int64_t axis : ctx.const_ints(2, "axes"))
            normalize_axis(ctx, axis, static_cast<int64_t>(data.size()), "roll axis");
    return {{ctx.input_type(0), data}};
}

int64_t count_non_zero(const KnownValue& value) {
    const std::vector<double> values = value.as_floats();
    return std::count_if(values.begin(), values.end(), [](double v) { return v != 0.0; });
}

std::vector<PortInfo> infer_non_zero(const InferContext& ctx) {
    const ElementType type = output_type_attr(ctx, "i64", {ElementType::i32, ElementType::i64});
    const KnownValue* value = ctx.input_value(0);
    const int64_t rank = static_cast<int64_t>(ctx.input_shape(0).size());
    // The number of non-zeros of data computed when the model runs is known then: the framework
    // runs the model in stages around the op (cut_model.hpp).
    if (!value) return {{type, Shape{rank, kDynamicDim}}};
    return {{type, Shape{rank, count_non_zero(*value)}}};
}

// Unique-mosaic1 (ONNX's Unique): the distinct values or slices along `axis`, sorted or in order of
// first occurrence; where each first occurs, each input slice's unique one, and their counts (i64).
// How many are distinct is known with the input's value (else dynamic: the model runs in stages).
std::vector<PortInfo> infer_unique(const InferContext& ctx) {
    const ElementType type = ctx.input_type(0);
    ctx.check(type != ElementType::undefined, "input must have an element type");
    const Shape& x = ctx.input_shape(0);
    const int64_t sorted = ctx.attrs().get_int("sorted", 1);
    ctx.check(sorted == 0 || sorted == 1, "sorted must be 0 or 1, got " + std::to_string(sorted));
    std::optional<int64_t> axis;
    if (ctx.attrs().has("axis")) axis = normalize_axis(ctx, ctx.attrs().get_int("axis"), static_cast<int64_t>(x.size()));
    Shape unique = axis ? x : Shape{is_static(x) ? shape_size(x) : kDynamicDim};
    const int64_t slices = unique[static_cast<size_t>(axis.value_or(0))];
    int64_t count = kDynamicDim;
    if (const KnownValue* value = ctx.input_value(0)) {
        // f16 and bf16 compare as the f32 values they widen to, as the kernel sees them.
        std::vector<float> widened;
        ConstTensorView view{value->type, value->shape, value->data};
        if (type == ElementType::f16 || type == ElementType::bf16) {
            for (double v : value->as_floats()) widened.push_back(static_cast<float>(v));
            view = {ElementType::f32, value->shape, widened.data()};
        }
        count = static_cast<int64_t>(reference::unique_slices(view, axis, sorted == 1).first.size());
    }
    unique[static_cast<size_t>(axis.value_or(0))] = count;
    return {{type, unique}, {ElementType::i64, Shape{count}}, {ElementType::i64, Shape{slices}}, {ElementType::i64, Shape{count}}};
}

std::vector<PortInfo> infer_cum_sum(const InferContext& ctx) {
    const ElementType type = ctx.input_type(0);
    ctx.check(type != ElementType::boolean && type != ElementType::undefined,
              "data must have a numeric element type, got " + std::string(to_string(type)));
    const Shape& data = ctx.input_shape(0);
    ctx.check(!data.empty(), "data must have rank >= 1, got a scalar");
    ctx.attrs().get_bool("exclusive", false);  // parsed here so a bad value fails at build time
    ctx.attrs().get_bool("reverse", false);
    if (ctx.input_count() > 1) {
        dm::require_integer(ctx, 1, "axis");
        require_scalar(ctx, 1, "axis");
        if (ctx.input_value(1))
            normalize_axis(ctx, ctx.const_ints(1, "axis").at(0), static_cast<int64_t>(data.size()));
    }
    return {{type, data}};
}

}  // namespace

void register_index_ops(OpRegistry& r) {
    r.add({"GatherND", {"opset5"}, 2, 2, [](const InferContext& ctx) { return infer_gather_nd(ctx, true); }});
    r.add({"GatherND", {"opset8"}, 2, 2, [](const InferContext& ctx) { return infer_gather_nd(ctx, false); }});
    r.add({"GatherElements", {"opset6"}, 2, 2, infer_gather_elements});
    r.add({"OneHot", {"opset1"}, 4, 4, infer_one_hot});
    r.add({"ReverseSequence", {"opset1"}, 2, 2, infer_reverse_sequence});
    r.add({"Eye", {"opset9"}, 3, 4, infer_eye});
    r.add({"Roll", {"opset7"}, 3, 3, infer_roll});
    r.add({"NonZero", {"opset3"}, 1, 1, infer_non_zero});
    r.add({"Unique", {"mosaic1"}, 1, 1, infer_unique});
    r.add({"CumSum", {"opset3"}, 1, 2, infer_cum_sum});
}

}  // namespace mosaic::ops
