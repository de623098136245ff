// Pad-1 and Pad-12, any 1-, 2-, 4- or 8-byte type, constant pads, every pad_mode (constant, edge,
// reflect, symmetric), negative pads cropping: one kernel mapping each output element to its
// input element (pad.cl's pad_*), as the reference does. An explicit Pad before a
// convolution or pooling (TensorFlow's exports, reflection padding in image models) so stays on
// the GPU.
#include "ops/copy_executor.hpp"
#include "kernels/kernel_args.hpp"
#include "ops/op_registry.hpp"

#include <mosaic/sdk/status.hpp>

#include <algorithm>

namespace mosaic::gpu_plugin {

namespace {

// The kernel's PadMode for a pad_mode, or -1 for one it has none for.
cl_int mode_code(const std::string& mode) {
    if (mode == "constant") return PAD_CONSTANT;
    if (mode == "edge") return PAD_EDGE;
    if (mode == "reflect") return PAD_REFLECT;
    if (mode == "symmetric") return PAD_SYMMETRIC;
    return -1;
}

std::string check_pad(const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
    if (auto r = first_of({check_movable(g, n), check_constant_input(g, n, 1), check_constant_input(g, n, 2)}); !r.empty())
        return r;
    const std::string mode = g.attributes(n).get_string("pad_mode", "constant");
    const cl_int code = mode_code(mode);
    if (code < 0) return "pad_mode '" + mode + "' has no GPU kernel";
    if (g.input_shape(n, 0).size() > static_cast<size_t>(kMaxRank)) return "rank above 8";
    if (g.input_count(n) > 3 && (shape_size(g.input_shape(n, 3)) != 1 || g.input_type(n, 3) != g.input_type(n, 0)))
        return "pad_value must be a scalar of the data's type";
    // How far a mirroring mode reaches: reflect the axis's size less 1, symmetric its size, edge
    // anything (once there is an element); the reference refuses beyond, so does the query.
    const Shape in = g.input_shape(n, 0);
    const std::vector<int64_t> begin = constant_ints(g, n, 1), end = constant_ints(g, n, 2);
    if (begin.size() != in.size() || end.size() != in.size()) return "pads must have one entry per data axis";
    for (size_t d = 0; d < in.size() && code != 0; ++d) {
        const int64_t reach = code == 1 ? INT64_MAX : code == 2 ? in[d] - 1 : in[d];
        if (std::max(begin[d], end[d]) > reach) return "padding axis " + std::to_string(d) + " reaches beyond what pad_mode '" + mode + "' can mirror";
    }
    return "";
}

class PadExecutor : public Executor {
public:
    PadExecutor(const BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), "Pad", {ctx.values.input(n, 0)}, {ctx.values.output(n, 0)}) {
        const sdk::GraphView& g = ctx.graph;
        const Shape in = g.input_shape(n, 0), out = g.output_shape(n, 0);
        const std::vector<int64_t> begin = constant_ints(g, n, 1), in_strides = strides_of(in);
        p_.rank = static_cast<cl_int>(in.size());
        p_.mode = mode_code(g.attributes(n).get_string("pad_mode", "constant"));
        for (size_t d = 0; d < in.size(); ++d) {
            p_.out_dims[d] = static_cast<cl_int>(out[d]);
            p_.in_dims[d] = static_cast<cl_int>(in[d]);
            p_.in_strides[d] = static_cast<cl_int>(in_strides[d]);
            p_.begin[d] = static_cast<cl_int>(begin[d]);
        }
        // The pad value: its input where given (computed or not), else zeros of the element's size.
        if (g.input_count(n) > 3) add_input(ctx.values.input(n, 3));
        else zero_ = ctx.upload_bytes(&kZero, sizeof kZero);
        kernel_ = "pad_u" + std::to_string(element_size(ctx.device_type(g.output_type(n, 0))) * 8);
        count_ = shape_size(out);
    }
    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel(kernel_);
        set_args(k, ctx[inputs()[0]], ctx[outputs()[0]], inputs().size() > 1 ? ctx[inputs()[1]] : zero_, p_);
        ctx.launch(k, items(count_));
    }
    std::string exec_type() const override { return kernel_; }

private:
    static constexpr uint64_t kZero = 0;
    PadShape p_;
    cl::Buffer zero_;
    std::string kernel_;
    int64_t count_ = 0;
};

const OpRegistration pad({"Pad"}, {check_pad, [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                       return std::make_unique<PadExecutor>(ctx, n);
                                   }});

}  // namespace

}  // namespace mosaic::gpu_plugin
