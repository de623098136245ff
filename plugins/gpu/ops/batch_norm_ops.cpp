// BatchNormInference-1 and -5, f32, over axis 1, and what follows it fused (fusion.hpp). With
// parameters known at compile time, one multiply-add a channel (the SDK's batch_norm.hpp); after
// a convolution it never runs then, the convolution folds it (fusion.cpp). This kernel is for the
// others, as a normalisation after a pooling or at a model's input, so that such a model does not
// split around it under HETERO. Parameters computed at run time (ONNX's node tests feed them as
// inputs) are read by the kernel, which normalises as the reference does.
#include "ops/fusion.hpp"
#include "kernels/kernel_args.hpp"
#include "ops/op_registry.hpp"

namespace mosaic::gpu_plugin {

namespace {

std::string check_batch_norm(const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
    if (auto r = first_of({check_types(g, n, {ElementType::f32}), check_static_nonempty(g, n)}); !r.empty()) return r;
    if (g.input_count(n) != 5) return "BatchNormInference needs its five inputs";
    const sdk::BatchNormPorts ports = sdk::batch_norm_ports(g.version(n) == "opset5");
    const Shape data = g.input_shape(n, ports.data);
    if (data.size() < 2) return "BatchNormInference of rank below 2 has no channel axis";
    for (size_t port : {ports.gamma, ports.beta, ports.mean, ports.variance}) {
        if (shape_size(g.input_shape(n, port)) != data[1])
            return "input " + std::to_string(port) + " does not hold one value per channel (" + std::to_string(data[1]) + ")";
    }
    return "";
}

class BatchNormExecutor : public Executor {
public:
    BatchNormExecutor(BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), "BatchNormInference",
                   {ctx.values.input(n, sdk::batch_norm_ports(ctx.graph.version(n) == "opset5").data)},
                   {ctx.values.output(n, 0)}) {
        if (const std::optional<sdk::ChannelAffine> affine = batch_norm_affine_of(ctx, n, inputs()[0])) {
            scale_ = ctx.upload(affine->scale.data(), affine->scale.size());
            shift_ = ctx.upload(affine->shift.data(), affine->shift.size());
        } else {
            const sdk::BatchNormPorts ports = sdk::batch_norm_ports(ctx.graph.version(n) == "opset5");
            for (size_t port : {ports.gamma, ports.beta, ports.mean, ports.variance}) add_input(ctx.values.input(n, port));
            epsilon_ = static_cast<cl_float>(ctx.graph.attributes(n).get_float("epsilon"));
        }
        const Shape shape = ctx.graph.output_shape(n, 0);
        channels_ = static_cast<cl_int>(shape[1]);
        inner_ = static_cast<cl_int>(shape_size(shape) / shape[0] / shape[1]);
        count_ = shape_size(shape);
        epilogue_ = fuse_epilogue(ctx, n, 1);
        take_epilogue(ctx.graph, epilogue_);
    }

    void enqueue(const ExecContext& ctx) const override {
        const cl::Buffer &y = ctx[outputs()[0]], &bias = epilogue_.bias_buffer(ctx, y);
        const cl::Buffer& residual = epilogue_.residual != kNoValue ? ctx[epilogue_.residual] : y;
        cl::Kernel& k = ctx.kernel(exec_type());
        if (runtime_parameters()) {  // inputs: data, gamma, beta, mean, variance, then the epilogue's
            set_args(k, ctx[inputs()[0]], y, ctx[inputs()[1]], ctx[inputs()[2]], ctx[inputs()[3]], ctx[inputs()[4]],
                     epsilon_, channels_, inner_, bias, residual, epilogue_.args);
        } else {
            set_args(k, ctx[inputs()[0]], y, scale_, shift_, channels_, inner_, bias, residual, epilogue_.args);
        }
        ctx.launch(k, items(count_));
    }
    std::string exec_type() const override { return runtime_parameters() ? "batch_norm_f32" : "scale_shift_f32"; }

private:
    bool runtime_parameters() const { return scale_() == nullptr; }

    cl::Buffer scale_, shift_;  // null with parameters computed at run time
    cl_float epsilon_ = 0;
    cl_int channels_ = 1, inner_ = 1;
    int64_t count_ = 0;
    Epilogue epilogue_;
};

const OpRegistration batch_norm({"BatchNormInference"},
                                {check_batch_norm, [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                     return std::make_unique<BatchNormExecutor>(ctx, n);
                                 }});

}  // namespace

}  // namespace mosaic::gpu_plugin
