#include "matmul_executor.hpp"

#include "integer_operands.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace mosaic::cpu_plugin {

namespace {

bool runnable(const Value& v) {
    if (v.type != ElementType::f32 || v.shape.empty()) return false;
    return std::all_of(v.shape.begin(), v.shape.end(), [](int64_t d) { return d > 0; });
}

// One operand as oneDNN sees it: dims [batch..., rows, cols] over the row-major data of `stored`,
// padded with leading 1s to `rank`; a transposed operand swaps the last two dims and their strides.
dnnl::memory::desc operand_desc(Shape stored, bool transposed, size_t rank,
                                dnnl::memory::data_type type = dnnl::memory::data_type::f32) {
    stored.insert(stored.begin(), rank - stored.size(), 1);
    dnnl::memory::dims strides(rank, 1);
    for (size_t i = rank; i-- > 1;) strides[i - 1] = strides[i] * stored[i];
    dnnl::memory::dims dims = dims_of(stored);
    if (transposed) {
        std::swap(dims[rank - 1], dims[rank - 2]);
        std::swap(strides[rank - 1], strides[rank - 2]);
    }
    return dnnl::memory::desc(dims, type, strides);
}

// A bias with one value per output column: every dim 1 but the last (an [M, 1] bias of a square
// product has as many values, one per row).
bool along_last_axis(const Shape& bias, int64_t columns) {
    if (bias.empty()) return columns == 1;
    return bias.back() == columns && std::all_of(bias.begin(), bias.end() - 1, [](int64_t d) { return d == 1; });
}

}  // namespace

MatMulExecutor::MatMulExecutor(std::string name, std::string type, std::vector<ValueId> inputs, ValueId output)
    : Executor(std::move(name), std::move(type), std::move(inputs), {output}) {}

std::unique_ptr<Executor> MatMulExecutor::create(const BuildContext& ctx, size_t node, const std::vector<FusedOp>& fused) {
    const sdk::GraphView& g = ctx.graph;
    const ValueId a_id = ctx.values.input(node, 0), b_id = ctx.values.input(node, 1);
    const Value& a = ctx.values[a_id];
    const Value& b = ctx.values[b_id];
    const Value& out = ctx.values[ctx.values.output(node, 0)];
    if (!runnable(a) || !runnable(b) || !runnable(out)) return nullptr;
    const Attributes attrs = g.attributes(node);
    // OpenVINO: a 1-D A is a row [1, K], a 1-D B a column [K, 1]; transposing either is a no-op.
    Shape a_shape = a.shape, b_shape = b.shape;
    const bool a_vector = a_shape.size() == 1, b_vector = b_shape.size() == 1;
    const bool ta = !a_vector && attrs.get_bool("transpose_a", false);
    const bool tb = !b_vector && attrs.get_bool("transpose_b", false);
    if (a_vector) a_shape.insert(a_shape.begin(), 1);
    if (b_vector) b_shape.push_back(1);
    const FusedOp* bias = find_fused(fused, FusedOp::Kind::bias);
    // Dequantized operands run as integers (integer_operands.hpp): A as its producer wrote it
    // (plain), a bias with one value per column.
    IntegerOperands integer_ops;
    const int64_t columns = tb ? b_shape.front() : b_shape.back();
    const bool integer = b.is_constant() && b_shape.size() == 2 &&
                         integer_matmul_operands(ctx, node, tb, columns, integer_ops) &&
                         ctx.values[integer_ops.src.q].is_plain() &&
                         (!bias || along_last_axis(ctx.values[bias->operand].shape, columns));
    const FusedOp* quantize = find_fused(fused, FusedOp::Kind::quantize);
    if (quantize && (!integer || !quantize->quantization.per_tensor() || find_fused(fused, FusedOp::Kind::sum) ||
                     find_fused(fused, FusedOp::Kind::quantized_sum)))
        return nullptr;
    const auto a_type = integer ? data_type_of(integer_ops.src.params.type) : dnnl::memory::data_type::f32;
    const auto dst_type = quantize ? data_type_of(quantize->quantization.type) : dnnl::memory::data_type::f32;
    // A batch of rows times one 2-D matrix (every fully connected layer of an encoder: [1, 128, 768]
    // x [768, 768]) is one 2-D product over all the rows: oneDNN blocks a tall 2-D product far
    // better than a batch of short ones. A bias must then vary along the columns only.
    bool collapse = a_shape.size() > 2 && b_shape.size() == 2 && !ta;
    if (collapse && bias) {
        const Shape& bs = ctx.values[bias->operand].shape;
        collapse = std::all_of(bs.begin(), bs.end() - (bs.empty() ? 0 : 1), [](int64_t d) { return d == 1; });
    }
    if (collapse) {
        const int64_t rows = shape_size(a_shape) / a_shape.back();
        a_shape = {rows, a_shape.back()};
    }
    const size_t rank = std::max(a_shape.size(), b_shape.size());

    const dnnl::memory::desc a_desc = operand_desc(a_shape, ta, rank, a_type);
    const dnnl::memory::desc b_desc = operand_desc(b_shape, tb, rank, integer ? dnnl::memory::data_type::s8 : dnnl::memory::data_type::f32);
    dnnl::memory::dims dst_dims(rank);
    for (size_t i = 0; i + 2 < rank; ++i) dst_dims[i] = std::max(a_desc.dims()[i], b_desc.dims()[i]);
    dst_dims[rank - 2] = a_desc.dims()[rank - 2];
    dst_dims[rank - 1] = b_desc.dims()[rank - 1];
    const Shape dst_shape(dst_dims.begin(), dst_dims.end());
    if (shape_size(dst_shape) != shape_size(out.shape)) return nullptr;

    if (bias && !collapse && dst_shape != out.shape) return nullptr;  // a bias over a squeezed output: not worth it

    const size_t last = last_node(node, fused);
    const ValueId a_read = integer ? integer_ops.src.q : a_id, b_read = integer ? integer_ops.weights.q : b_id;
    std::vector<ValueId> inputs{a_read, b_read};
    for (const FusedOp& op : fused)
        if (op.operand != kNoValue) inputs.push_back(op.operand);
    std::unique_ptr<MatMulExecutor> e(
        new MatMulExecutor(g.node_name(last), g.type(node), std::move(inputs), ctx.values.output(last, 0)));
    e->engine_ = ctx.engine;
    e->a_ = a_read;
    e->b_ = b_read;
    e->dst_ = e->outputs()[0];
    e->a_desc_ = a_desc;
    e->dst_desc_ = plain_desc(dst_shape, dst_type);
    e->constant_b_ = b.is_constant();
    if (bias) {
        Shape bias_shape = ctx.values[bias->operand].shape;
        if (collapse) bias_shape = {1, bias_shape.empty() ? 1 : bias_shape.back()};
        bias_shape.insert(bias_shape.begin(), rank - bias_shape.size(), 1);
        e->bias_desc_ = plain_desc(bias_shape);
        e->bias_ = ctx.values[bias->operand].constant;
    }
    if (const FusedOp* sum = find_fused(fused, FusedOp::Kind::sum)) e->residual_ = sum->operand;

    dnnl::primitive_attr attr = user_scratchpad_attr();
    attr.set_post_ops(post_ops_of(fused));
    if (integer) {
        std::optional<dnnl::primitive_attr> integer_attr =
            integer_attributes(integer_ops, fused, 1 << (rank - 1), columns, e->bias_, e->owned_bias_);
        if (!integer_attr) return nullptr;
        attr = *integer_attr;
    }
    // With constant weights the product runs in the compute type: bf16 weights packed once, A
    // converted per inference; the output stays f32. Two runtime operands (attention) stay f32.
    // Integers run as they are: u8/i8 A, i8 weights.
    const auto compute = integer ? dnnl::memory::data_type::s8
                         : e->constant_b_ ? ctx.compute
                                          : dnnl::memory::data_type::f32;
    // In place (CPU_WEIGHTS_IN_PLACE) the primitive takes the weights as stored: a prefill's tall
    // product runs 0-5% slower on them than packed, and no second copy of them is made.
    const bool in_place = e->constant_b_ && ctx.weights_in_place && compute == dnnl::memory::data_type::f32 && !integer;
    const dnnl::memory::desc weights_request =
        e->constant_b_ && !in_place ? dnnl::memory::desc(b_desc.dims(), compute, dnnl::memory::format_tag::any) : b_desc;
    const dnnl::memory::desc a_request = compute == dnnl::memory::data_type::f32 || integer
                                             ? a_desc
                                             : dnnl::memory::desc(a_desc.dims(), compute, dnnl::memory::format_tag::any);
    dnnl::matmul::primitive_desc pd;
    try {
        pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_request, weights_request, e->bias_desc_, e->dst_desc_),
                                          attr, ctx.engine);
    } catch (const dnnl::error&) {
        return nullptr;
    }
    e->primitive_ = dnnl::matmul(pd);
    e->impl_ = std::string(pd.impl_info_str()) + (integer ? "_I8" : "");
    e->scratchpad_desc_ = pd.scratchpad_desc();
    e->b_desc_ = pd.weights_desc();
    if (e->constant_b_)
        e->weights_ = PackedWeights::of_constant(ctx.engine, b_desc, ctx.values[b_read].constant, pd.weights_desc());
    size_t pad_bytes = e->scratchpad_desc_.get_size();
    if (pd.src_desc() != a_desc) {
        e->a_compute_desc_ = pd.src_desc();
        e->a_reorder_ = Reorder(ctx.engine, a_desc, e->a_compute_desc_);
        e->a_offset_ = e->scratch_.reserve(e->a_compute_desc_.get_size());
        pad_bytes = std::max(pad_bytes, e->a_reorder_.scratchpad_bytes());
    }
    e->pad_offset_ = e->scratch_.reserve(pad_bytes);
    if (!integer) e->prepare_gemv(ctx, fused, a_shape, ta, b_shape.size() == 2);
    return e;
}

void MatMulExecutor::prepare_gemv(const BuildContext& ctx, const std::vector<FusedOp>& fused, const Shape& a_shape,
                                  bool transposed_a, bool matrix_b) {
    const int64_t columns = dst_desc_.dims().back();
    if (!constant_b_ || !matrix_b || transposed_a || shape_size(a_shape) != a_shape.back() ||
        dst_desc_.get_size() != static_cast<size_t>(columns) * sizeof(float) || a_compute_desc_ != dnnl::memory::desc())
        return;
    std::optional<BlockedWeights> blocked = blocked_weights_of(b_desc_);
    // The plain kernel only for weights read where the host holds them (a plain copy oneDNN asked
    // for is rare and runs on oneDNN).
    std::optional<PlainWeights> plain = blocked || weights_.reordered() ? std::nullopt : plain_weights_of(b_desc_);
    const int64_t rows = blocked ? blocked->rows : plain ? plain->rows : -1;
    if (rows != a_shape.back() || (blocked ? blocked->columns : plain->columns) != columns) return;
    if (bias_ && bias_desc_.get_size() != static_cast<size_t>(columns) * sizeof(float)) return;  // one per column
    row_desc_ = plain_desc({1, columns});
    for (const FusedOp& op : merged_post_ops(fused)) {
        if (op.kind != FusedOp::Kind::eltwise) continue;
        try {
            const dnnl::eltwise_forward::primitive_desc pd(
                dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, op.algorithm, row_desc_, op.alpha, op.beta),
                user_scratchpad_attr(), ctx.engine);
            if (pd.scratchpad_desc().get_size() != 0) return;
            eltwise_.emplace_back(pd);
        } catch (const dnnl::error&) {
            return;
        }
    }
    post_ops_ = merged_post_ops(fused);
    if (blocked) x_offset_ = scratch_.reserve(static_cast<size_t>(blocked->padded_rows) * sizeof(float));
    y_offset_ = scratch_.reserve(static_cast<size_t>(columns) * sizeof(float));
    gemv_ = blocked;
    plain_gemv_ = plain;
    impl_ = plain ? "gemv_in_place:avx512_core" : "gemv:avx512_core";
}

void MatMulExecutor::execute(const ExecContext& ctx) const {
    if (gemv_ || plain_gemv_) return execute_gemv(ctx);
    if (residual_ != kNoValue && ctx[residual_] != ctx[dst_])
        std::memcpy(ctx[dst_], ctx[residual_], dst_desc_.get_size());  // the sum post-op adds what dst holds
    void* b = constant_b_ ? weights_.data() : ctx[b_];
    void* pad = ctx.scratch + pad_offset_;
    dnnl::memory a(a_desc_, engine_, ctx[a_]);
    if (a_reorder_) {
        const dnnl::memory converted(a_compute_desc_, engine_, ctx.scratch + a_offset_);
        a_reorder_.run(*ctx.stream, a, converted, pad);
        a = converted;
    }
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, a},
                                               {DNNL_ARG_WEIGHTS, dnnl::memory(b_desc_, engine_, b)},
                                               {DNNL_ARG_DST, dnnl::memory(dst_desc_, engine_, ctx[dst_])}};
    if (bias_) args[DNNL_ARG_BIAS] = dnnl::memory(bias_desc_, engine_, const_cast<void*>(bias_));
    if (scratchpad_desc_.get_size()) args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(scratchpad_desc_, engine_, pad);
    primitive_.execute(*ctx.stream, args);
}

void MatMulExecutor::execute_gemv(const ExecContext& ctx) const {
    auto* y = reinterpret_cast<float*>(ctx.scratch + y_offset_);
    const auto* weights = static_cast<const float*>(weights_.data());
    size_t n = 0;
    if (gemv_) {
        const BlockedWeights& w = *gemv_;
        auto* x = reinterpret_cast<float*>(ctx.scratch + x_offset_);
        std::memcpy(x, ctx[a_], static_cast<size_t>(w.rows) * sizeof(float));
        std::fill(x + w.rows, x + w.padded_rows, 0.0f);  // the weights' padding rows are zero, x's must be finite
        gemv(w, weights, x, y);
        n = static_cast<size_t>(w.columns);
    } else {
        gemv(*plain_gemv_, weights, static_cast<const float*>(ctx[a_]), y);
        n = static_cast<size_t>(plain_gemv_->columns);
    }
    if (bias_) {
        const auto* b = static_cast<const float*>(bias_);
        for (size_t i = 0; i < n; ++i) y[i] += b[i];
    }
    // The post-ops in the order oneDNN would apply them; the residual is read before dst is written.
    size_t eltwise = 0;
    for (const FusedOp& op : post_ops_) {
        if (op.kind == FusedOp::Kind::eltwise) {
            const dnnl::memory row(row_desc_, engine_, y);
            eltwise_[eltwise++].execute(*ctx.stream, {{DNNL_ARG_SRC, row}, {DNNL_ARG_DST, row}});
        } else if (op.kind == FusedOp::Kind::sum) {
            const auto* r = static_cast<const float*>(ctx[residual_]);
            for (size_t i = 0; i < n; ++i) y[i] += r[i];
        }
    }
    std::memcpy(ctx[dst_], y, n * sizeof(float));
}

}  // namespace mosaic::cpu_plugin
