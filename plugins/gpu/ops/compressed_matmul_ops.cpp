#include "ops/compressed_matmul.hpp"

#include "kernels/kernel_args.hpp"
#include "ops/fusion.hpp"

#include <mosaic/sdk/compressed_weights.hpp>

namespace mosaic::gpu_plugin {

namespace {

// Per group of the weights' rows, their scales and zero points, uploaded as floats.
struct GroupParameters {
    cl::Buffer scale, zero;
    GroupParameters(const BuildContext& ctx, const sdk::patterns::CompressedWeights& w) {
        const std::vector<float> s = sdk::patterns::group_values(ctx.values, w.scale, w);
        const std::vector<float> z = sdk::patterns::group_values(ctx.values, w.zero_point, w);
        scale = ctx.upload_bytes(s.data(), s.size() * sizeof(float));
        zero = ctx.upload_bytes(z.data(), z.size() * sizeof(float));
    }
};

class CompressedMatMulExecutor : public Executor {
public:
    CompressedMatMulExecutor(BuildContext& ctx, size_t n, const sdk::patterns::CompressedWeights& w)
        : Executor(ctx.graph.node_name(n), "MatMul", {ctx.values.input(n, 0), w.codes}, {ctx.values.output(n, 0)}),
          parameters_(ctx, w), n_(w.rows), k_(w.columns), group_(w.group), signed_(ctx.values[w.codes].type == ElementType::i8) {
        const Shape out = ctx.graph.output_shape(n, 0);
        outputs_count_ = shape_size(out);
        rows_ = ctx.engine.info().prefers_sixteen_wide();
        lanes_ = group_lanes(k_, ctx.engine.info());
        epilogue_ = fuse_epilogue(ctx, n, out.size() - 1);
        take_epilogue(ctx.graph, epilogue_);
    }

    void enqueue(const ExecContext& ctx) const override {
        const cl::Buffer &x = ctx[inputs()[0]], &codes = ctx[inputs()[1]], &y = ctx[outputs()[0]];
        cl::Kernel& k = ctx.kernel(exec_type());
        if (rows_) {
            set_args(k, x, codes, parameters_.scale, parameters_.zero, y, static_cast<cl_int>(n_), static_cast<cl_int>(k_),
                     static_cast<cl_int>(group_));
            ctx.launch(k, items(outputs_count_));
        } else {
            set_args(k, x, codes, parameters_.scale, parameters_.zero, y, static_cast<cl_int>(n_), static_cast<cl_int>(k_),
                     static_cast<cl_int>(group_), cl::Local(static_cast<size_t>(lanes_) * sizeof(float)));
            ctx.launch(k, items(outputs_count_ * lanes_), items(lanes_));
        }
        if (epilogue_.empty()) return;
        cl::Kernel& e = ctx.kernel("epilogue_f32");
        const cl::Buffer& bias = epilogue_.bias_buffer(ctx, y);
        const cl::Buffer& residual = epilogue_.residual != kNoValue ? ctx[epilogue_.residual] : y;
        set_args(e, y, bias, residual, epilogue_.args);
        ctx.launch(e, items(outputs_count_));
    }
    std::string exec_type() const override {
        return std::string(rows_ ? "compressed_matmul_rows_" : "compressed_matmul_") + (signed_ ? "i8" : "u8");
    }

private:
    GroupParameters parameters_;
    int64_t n_, k_, group_;
    bool signed_;
    int64_t outputs_count_ = 0, lanes_ = 1;
    bool rows_ = false;  // a work item per output (OpenCL CPU devices), else a work group of lanes_
    Epilogue epilogue_;
};

class CompressedGatherExecutor : public Executor {
public:
    CompressedGatherExecutor(BuildContext& ctx, size_t n, const sdk::patterns::CompressedWeights& w)
        : Executor(ctx.graph.node_name(n), "Gather", {w.codes, ctx.values.input(n, 1)}, {ctx.values.output(n, 0)}),
          parameters_(ctx, w), n_(w.rows), k_(w.columns), group_(w.group),
          kernel_(std::string("compressed_gather_") + (ctx.values[w.codes].type == ElementType::i8 ? "i8_" : "u8_") +
                  to_string(ctx.values[ctx.values.input(n, 1)].type)),
          count_(shape_size(ctx.graph.output_shape(n, 0))) {}

    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel(kernel_);
        set_args(k, ctx[inputs()[0]], ctx[inputs()[1]], parameters_.scale, parameters_.zero, ctx[outputs()[0]],
                 static_cast<cl_int>(n_), static_cast<cl_int>(k_), static_cast<cl_int>(group_));
        ctx.launch(k, items(count_));
    }
    std::string exec_type() const override { return kernel_; }

private:
    GroupParameters parameters_;
    int64_t n_, k_, group_;
    std::string kernel_;
    int64_t count_;
};

// The pattern of the weights node `n` reads at `port`, when their decompression was left unfolded;
// else false. A mismatch would leave the weights uncomputed: a bug, reported as one.
bool weights_in_kernel(const BuildContext& ctx, size_t n, size_t port, sdk::patterns::CompressedWeights& w) {
    const size_t producer = ctx.values[ctx.values.input(n, port)].producer;
    if (producer == SIZE_MAX || !ctx.values.decompressed_in_kernel(producer)) return false;
    const auto known = [&](size_t v) { return ctx.values[v].is_constant(); };
    const bool found = port == 1 ? sdk::patterns::compressed_matmul_at(ctx.graph, ctx.values, n, known, w)
                                 : sdk::patterns::compressed_gather_at(ctx.graph, ctx.values, n, known, w);
    if (!found)
        throw sdk::Error(MOSAIC_ERROR_GENERAL, "GPU plugin bug: the weights of '" + ctx.graph.node_name(n) +
                                                   "' were left compressed but are not compressed weights");
    return true;
}

}  // namespace

std::unique_ptr<Executor> compressed_gather(BuildContext& ctx, size_t n) {
    sdk::patterns::CompressedWeights w;
    if (!weights_in_kernel(ctx, n, 0, w)) return nullptr;
    return std::make_unique<CompressedGatherExecutor>(ctx, n, w);
}

std::unique_ptr<Executor> compressed_matmul(BuildContext& ctx, size_t n) {
    sdk::patterns::CompressedWeights w;
    if (!weights_in_kernel(ctx, n, 1, w)) return nullptr;
    return std::make_unique<CompressedMatMulExecutor>(ctx, n, w);
}

}  // namespace mosaic::gpu_plugin
