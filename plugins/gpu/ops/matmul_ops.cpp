// MatMul, f32, on a GEMM (gemm.hpp), with the bias and activations after it fused (fusion.hpp)
// into one epilogue pass. Supported: both operands of rank >= 2 whose batch dims are equal (the
// shorter one's padded with ones), or either operand one matrix (rank 2, or batch dims all 1)
// shared by every batch of the other (a shared B without transpose_a is one tall GEMM).
// A Transpose before an operand or after the result is walked through strides instead of run
// (matrix_layout.hpp).
#include "gemm/gemm.hpp"
#include "ops/compressed_matmul.hpp"
#include "ops/fusion.hpp"
#include "kernels/kernel_args.hpp"
#include "gemm/matrix_layout.hpp"
#include "ops/op_registry.hpp"

#include <algorithm>
#include <optional>

namespace mosaic::gpu_plugin {

namespace {

// The matrices an operand of rank >= 2 holds: the product of its batch dims.
int64_t batch_count(const Shape& s) {
    int64_t count = 1;
    for (size_t d = 0; d + 2 < s.size(); ++d) count *= s[d];
    return count;
}

std::string check_matmul(const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
    if (auto r = first_of({check_types(g, n, {ElementType::f32}), check_static_nonempty(g, n)}); !r.empty()) return r;
    const Shape a = g.input_shape(n, 0), b = g.input_shape(n, 1);
    if (a.size() < 2 || b.size() < 2) return "a 1-D operand has no GPU kernel (rank >= 2 both)";
    if (batch_count(a) == 1 || batch_count(b) == 1) return "";
    // Otherwise the batch dims must match once the shorter list is padded with leading ones.
    const size_t rank = std::max(a.size(), b.size());
    for (size_t d = 0; d + 2 < rank; ++d) {
        const int64_t da = d + a.size() >= rank ? a[d + a.size() - rank] : 1, db = d + b.size() >= rank ? b[d + b.size() - rank] : 1;
        if (da != db) return "broadcast batch dims have no GPU kernel (" + to_string(a) + " x " + to_string(b) + ")";
    }
    return "";
}

// Operand `port` of MatMul `n`: the value the GEMM reads, and its layout when that is a
// Transpose's input the GEMM walks instead of the Transpose's output (nothing: dense).
struct Operand {
    ValueId value = kNoValue;
    std::optional<MatrixLayout> layout;
};

Operand operand(const BuildContext& ctx, size_t n, size_t port) {
    const ValueId v = ctx.values.input(n, port);
    const size_t producer = ctx.values[v].producer;
    if (producer != SIZE_MAX && ctx.graph.type(producer) == "Transpose")
        if (const auto read = transpose_read_by_matmul(ctx.graph, ctx.values, producer); read && read->port == port)
            return {read->source, read->layout};
    return {v, std::nullopt};
}

class MatMulExecutor : public Executor {
public:
    MatMulExecutor(BuildContext& ctx, size_t n, const Operand& a_in, const Operand& b_in)
        : Executor(ctx.graph.node_name(n), "MatMul", {a_in.value, b_in.value}, {ctx.values.output(n, 0)}) {
        const sdk::GraphView& g = ctx.graph;
        const Attributes attrs = g.attributes(n);
        const Shape a = g.input_shape(n, 0), b = g.input_shape(n, 1), out = g.output_shape(n, 0);
        GemmShape s;
        s.transpose_a = attrs.get_bool("transpose_a", false);
        s.transpose_b = attrs.get_bool("transpose_b", false);
        s.m = static_cast<size_t>(out[out.size() - 2]);
        s.n = static_cast<size_t>(out.back());
        s.k = static_cast<size_t>(s.transpose_a ? a[a.size() - 2] : a.back());
        size_t batch = 1;
        for (size_t d = 0; d + 2 < out.size(); ++d) batch *= static_cast<size_t>(out[d]);
        const std::optional<TransposeWrite> write = transpose_written_by_matmul(g, ctx.values, n);
        const bool shared_a = batch_count(a) == 1, shared_b = batch_count(b) == 1;
        if (shared_b && !s.transpose_a && !a_in.layout && !write) {
            s.m *= batch;  // rows of every batch times the one matrix
        } else {
            s.batch = batch;
            s.a_stride = shared_a ? 0 : s.m * s.k;
            s.b_stride = shared_b ? 0 : s.k * s.n;
            s.c_stride = s.m * s.n;
        }
        // An operand stored transposed flips the GEMM's transpose flag for it.
        if (a_in.layout) {
            s.transpose_a = s.transpose_a != a_in.layout->transposed;
            s.lda = a_in.layout->ld;
            if (!shared_a) s.a_stride = a_in.layout->batch_stride;
        }
        if (b_in.layout) {
            s.transpose_b = s.transpose_b != b_in.layout->transposed;
            s.ldb = b_in.layout->ld;
            if (!shared_b) s.b_stride = b_in.layout->batch_stride;
        }
        if (write) {  // the result goes where the Transpose after it puts it; no epilogue follows
            s.ldc = write->layout.ld;
            s.c_stride = write->layout.batch_stride;
            ctx.fused[write->transpose] = true;
            fused_into(g.node_name(write->transpose), ctx.values.output(write->transpose, 0));
        }
        gemm_.emplace(ctx, s, a_in.value, b_in.value);
        if (!write) epilogue_ = fuse_epilogue(ctx, n, out.size() - 1);
        take_epilogue(g, epilogue_);
        epilogue_in_gemm_ = !epilogue_.empty() && gemm_->applies_epilogue(epilogue_.args);
        count_ = shape_size(out);
    }

    void enqueue(const ExecContext& ctx) const override {
        const cl::Buffer &a = ctx[inputs()[0]], &b = ctx[inputs()[1]], &c = ctx[outputs()[0]];
        const cl::Buffer& bias = epilogue_.bias_buffer(ctx, c);
        const cl::Buffer& residual = epilogue_.residual != kNoValue ? ctx[epilogue_.residual] : c;
        gemm_->enqueue(ctx, a, 0, b, 0, c, 0, 0, epilogue_in_gemm_ ? GemmEpilogue{&epilogue_.args, &bias, &residual} : GemmEpilogue{});
        if (epilogue_.empty() || epilogue_in_gemm_) return;
        cl::Kernel& k = ctx.kernel("epilogue_f32");
        set_args(k, c, bias, residual, epilogue_.args);
        ctx.launch(k, items(count_));
    }
    std::string exec_type() const override { return gemm_->exec_type(); }
    size_t scratch_bytes() const override { return gemm_->scratch_elements() * sizeof(float); }

private:
    std::optional<Gemm> gemm_;
    bool epilogue_in_gemm_ = false;  // the tiled GEMM applies it as it stores
    Epilogue epilogue_;
    int64_t count_ = 0;
};

const OpRegistration matmul({"MatMul"}, {check_matmul, [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                             if (auto e = compressed_matmul(ctx, n)) return e;
                                             return std::make_unique<MatMulExecutor>(ctx, n, operand(ctx, n, 0), operand(ctx, n, 1));
                                         }});

}  // namespace

}  // namespace mosaic::gpu_plugin
