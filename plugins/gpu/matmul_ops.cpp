// MatMul, f32, on CLBlast's GEMM, with the bias and activations after it fused (fusion.hpp) into
// one epilogue pass. Supported: both operands of rank >= 2 whose batch dims are equal, or B of
// rank 2 (its one matrix shared by every batch; without transpose_a that is one tall GEMM).
#include "clblast_gemm.hpp"
#include "fusion.hpp"
#include "kernel_structs.hpp"
#include "op_registry.hpp"

namespace mosaic::gpu_plugin {

namespace {

std::string check_matmul(const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
    if (auto r = first_of({check_types(g, n, {ElementType::f32}), check_static_nonempty(g, n)}); !r.empty()) return r;
    const Shape a = g.input_shape(n, 0), b = g.input_shape(n, 1);
    if (a.size() < 2 || b.size() < 2) return "a 1-D operand has no GPU kernel (rank >= 2 both)";
    if (b.size() > 2) {
        if (a.size() != b.size()) return "batch dims of different rank have no GPU kernel";
        for (size_t d = 0; d + 2 < a.size(); ++d)
            if (a[d] != b[d]) return "broadcast batch dims have no GPU kernel (" + to_string(a) + " x " + to_string(b) + ")";
    }
    return "";
}

class MatMulExecutor : public Executor {
public:
    MatMulExecutor(BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), "MatMul", {ctx.values.input(n, 0), ctx.values.input(n, 1)}, {ctx.values.output(n, 0)}) {
        const sdk::GraphView& g = ctx.graph;
        const Attributes attrs = g.attributes(n);
        const Shape a = g.input_shape(n, 0), b = g.input_shape(n, 1), out = g.output_shape(n, 0);
        s_.transpose_a = attrs.get_bool("transpose_a", false);
        s_.transpose_b = attrs.get_bool("transpose_b", false);
        s_.m = static_cast<size_t>(out[out.size() - 2]);
        s_.n = static_cast<size_t>(out.back());
        s_.k = static_cast<size_t>(s_.transpose_a ? a[a.size() - 2] : a.back());
        size_t batch = 1;
        for (size_t d = 0; d + 2 < out.size(); ++d) batch *= static_cast<size_t>(out[d]);
        if (b.size() == 2 && !s_.transpose_a) {
            s_.m *= batch;  // rows of every batch times the one matrix
        } else {
            s_.batch = batch;
            s_.a_stride = s_.m * s_.k;
            s_.b_stride = b.size() == 2 ? 0 : s_.k * s_.n;
            s_.c_stride = s_.m * s_.n;
        }
        if (s_.batch > 1 && s_.b_stride == 0) per_batch_ = true;  // CLBlast wants distinct matrices
        epilogue_ = fuse_epilogue(ctx, n, out.size() - 1);
        if (!epilogue_.empty()) fused_into(g.node_name(epilogue_.last_node), epilogue_.out);
        if (epilogue_.bias != kNoValue) add_input(epilogue_.bias);
        if (epilogue_.residual != kNoValue) add_input(epilogue_.residual);
        count_ = shape_size(out);
    }

    void enqueue(const ExecContext& ctx) const override {
        const cl::Buffer &a = ctx[inputs()[0]], &b = ctx[inputs()[1]], &c = ctx[outputs()[0]];
        if (per_batch_) {
            GemmShape one = s_;
            one.batch = 1;
            for (size_t i = 0; i < s_.batch; ++i) enqueue_gemm(ctx, one, a, i * s_.a_stride, b, 0, c, i * s_.c_stride);
        } else {
            enqueue_gemm(ctx, s_, a, 0, b, 0, c, 0);
        }
        if (epilogue_.empty()) return;
        cl::Kernel& k = ctx.kernel("epilogue_f32");
        const cl::Buffer& bias = epilogue_.bias != kNoValue ? ctx[epilogue_.bias] : c;
        const cl::Buffer& residual = epilogue_.residual != kNoValue ? ctx[epilogue_.residual] : c;
        set_args(k, c, bias, residual, epilogue_.args);
        ctx.launch(k, items(count_));
    }
    std::string exec_type() const override { return "clblast_gemm"; }

private:
    GemmShape s_;
    bool per_batch_ = false;
    Epilogue epilogue_;
    int64_t count_ = 0;
};

const OpRegistration matmul({"MatMul"}, {check_matmul, [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                             return std::make_unique<MatMulExecutor>(ctx, n);
                                         }});

}  // namespace

}  // namespace mosaic::gpu_plugin
