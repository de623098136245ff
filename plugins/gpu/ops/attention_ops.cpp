// ScaledDotProductAttention-13 (attention.cl): f32 query, key and value (f16 storage under the f16
// hint) with numpy-broadcast batch axes, no mask, a boolean or additive one broadcast to [..., L, S],
// or the causal attribute; the scale one f32 element known at compile time, or 1/sqrt(E). What decoders exported by
// optimum-intel run at every step, which otherwise sends each layer's attention to another device.
#include "kernels/kernel_args.hpp"
#include "ops/op_registry.hpp"

#include <cmath>
#include <cstring>

namespace mosaic::gpu_plugin {

namespace {

constexpr size_t kQuery = 0, kKey = 1, kValue = 2, kMask = 3, kScale = 4;

// An operand's strides along the output's batch axes (0 where it broadcasts): numpy broadcasting
// of the operand to those axes followed by its own matrix.
std::vector<int64_t> batch_strides(const Shape& operand, const Shape& batch) {
    Shape full = batch;
    full.insert(full.end(), operand.end() - 2, operand.end());
    std::vector<int64_t> strides = broadcast_strides(operand, full);
    strides.resize(batch.size());
    return strides;
}

// Why the scale is not one the kernel takes (a one-element f32 value known at compile time: a
// constant, or what the compiled model folds, such as the decompression Convert of an f16 constant
// in an IR that ovc compressed to FP16), or "". Absent, it is 1/sqrt(E).
std::string check_scale(const sdk::GraphView& g, size_t n) {
    if (g.input_count(n) <= kScale) return "";
    if (g.input_type(n, kScale) != ElementType::f32 || shape_size(g.input_shape(n, kScale)) != 1)
        return "a scale that is not one f32 element has no GPU kernel";
    if (!check_compile_time_input(g, n, kScale).empty())
        return "a scale computed at run time has no GPU kernel (one known at compile time has)";
    return "";
}

float scale_of(const BuildContext& ctx, size_t n) {
    const sdk::GraphView& g = ctx.graph;
    if (g.input_count(n) <= kScale) return 1.0f / std::sqrt(static_cast<float>(g.input_shape(n, kQuery).back()));
    const auto& scale = ctx.values[ctx.values.input(n, kScale)];
    if (!scale.is_constant())
        throw sdk::Error(MOSAIC_ERROR_GENERAL, "GPU plugin bug: the scale of attention '" + g.node_name(n) + "' was not folded");
    float v = 0;
    std::memcpy(&v, scale.constant, sizeof v);
    return v;
}

std::string check_attention(const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
    if (g.input_count(n) > 5) return "an attention sink (input 5) has no GPU kernel";
    for (size_t i : {kQuery, kKey, kValue})
        if (g.input_type(n, i) != ElementType::f32) return "input " + std::to_string(i) + " is not f32";
    if (auto r = check_static_nonempty(g, n, ATTENTION_MAX_BATCH + 2); !r.empty()) return r;
    for (size_t i : {kQuery, kKey, kValue})
        if (g.input_shape(n, i).size() < 2) return "input " + std::to_string(i) + " has rank below 2";
    if (g.input_shape(n, kValue).back() > ATTENTION_MAX_VALUE)
        return "values longer than " + std::to_string(ATTENTION_MAX_VALUE) + " have no GPU kernel";
    if (shape_size(g.output_shape(n, 0)) >= (int64_t{1} << 31) || shape_size(g.input_shape(n, kKey)) >= (int64_t{1} << 31))
        return "more than 2^31 elements";
    // A mask is boolean or of the query's type, f32 (the schema's rule): the kernel takes both.
    return check_scale(g, n);
}

class AttentionExecutor : public Executor {
public:
    AttentionExecutor(const BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), "ScaledDotProductAttention",
                   {ctx.values.input(n, kQuery), ctx.values.input(n, kKey), ctx.values.input(n, kValue)},
                   {ctx.values.output(n, 0)}) {
        const sdk::GraphView& g = ctx.graph;
        const Shape out = g.output_shape(n, 0);
        const Shape batch(out.begin(), out.end() - 2);
        args_.batch_rank = static_cast<cl_int>(batch.size());
        const std::vector<int64_t> q = batch_strides(g.input_shape(n, kQuery), batch),
                                   k = batch_strides(g.input_shape(n, kKey), batch),
                                   v = batch_strides(g.input_shape(n, kValue), batch);
        for (size_t d = 0; d < batch.size(); ++d) {
            args_.batch_dims[d] = static_cast<cl_int>(batch[d]);
            args_.q_strides[d] = static_cast<cl_int>(q[d]);
            args_.k_strides[d] = static_cast<cl_int>(k[d]);
            args_.v_strides[d] = static_cast<cl_int>(v[d]);
        }
        args_.queries = static_cast<cl_int>(out[out.size() - 2]);
        args_.keys = static_cast<cl_int>(g.input_shape(n, kKey)[g.input_shape(n, kKey).size() - 2]);
        args_.depth = static_cast<cl_int>(g.input_shape(n, kQuery).back());
        args_.value_depth = static_cast<cl_int>(out.back());
        args_.scale = scale_of(ctx, n);
        if (g.attributes(n).get_bool("causal", false)) {
            args_.mask = ATTENTION_CAUSAL;
        } else if (g.input_count(n) > kMask) {
            // The mask broadcast to [batch..., L, S]: a scalar or any shape numpy broadcasts there.
            Shape full = batch;
            full.push_back(args_.queries);
            full.push_back(args_.keys);
            const std::vector<int64_t> strides = broadcast_strides(g.input_shape(n, kMask), full);
            for (size_t d = 0; d < batch.size(); ++d) args_.mask_strides[d] = static_cast<cl_int>(strides[d]);
            args_.mask_row_stride = static_cast<cl_int>(strides[batch.size()]);
            args_.mask_col_stride = static_cast<cl_int>(strides[batch.size() + 1]);
            args_.mask = g.input_type(n, kMask) == ElementType::boolean ? ATTENTION_BOOLEAN_MASK : ATTENTION_ADDITIVE_MASK;
            add_input(ctx.values.input(n, kMask));
        }
        rows_ = shape_size(out) / args_.value_depth;
    }
    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel("sdpa");
        // Without a mask the kernel reads none: the query's buffer stands in for it.
        const cl::Buffer& mask = args_.mask == ATTENTION_BOOLEAN_MASK || args_.mask == ATTENTION_ADDITIVE_MASK
                                     ? ctx[inputs()[3]]
                                     : ctx[inputs()[0]];
        set_args(k, ctx[inputs()[0]], ctx[inputs()[1]], ctx[inputs()[2]], mask, ctx[outputs()[0]], args_);
        ctx.launch(k, items(rows_));
    }
    std::string exec_type() const override { return "sdpa"; }

private:
    AttentionArgs args_;
    int64_t rows_ = 0;
};

const OpRegistration attention({"ScaledDotProductAttention"},
                               {check_attention, [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                    return std::make_unique<AttentionExecutor>(ctx, n);
                                }});

}  // namespace

}  // namespace mosaic::gpu_plugin
