// CumSum: running sums along an axis known at compile time, f32 (real), i32 or i64; exclusive and
// reverse (scan.cl's cumsum_*: one work item a line along the axis).
#include "ops/copy_executor.hpp"  // axis_of
#include "kernels/kernel_args.hpp"
#include "ops/op_registry.hpp"

namespace mosaic::gpu_plugin {

namespace {

class CumSumExecutor : public Executor {
public:
    CumSumExecutor(const BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), "CumSum", {ctx.values.input(n, 0)}, {ctx.values.output(n, 0)}),
          kernel_(std::string("cumsum_") + to_string(ctx.graph.input_type(n, 0))) {
        const Shape s = ctx.graph.input_shape(n, 0);
        const size_t axis = ctx.graph.input_count(n) > 1 ? static_cast<size_t>(axis_of(constant_ints(ctx.graph, n, 1).at(0), s.size())) : 0;
        length_ = static_cast<cl_int>(s[axis]);
        int64_t inner = 1;
        for (size_t d = axis + 1; d < s.size(); ++d) inner *= s[d];
        inner_ = static_cast<cl_int>(inner);
        lines_ = shape_size(s) / s[axis];
        const Attributes& a = ctx.graph.attributes(n);
        exclusive_ = a.get_bool("exclusive", false) ? 1 : 0;
        reverse_ = a.get_bool("reverse", false) ? 1 : 0;
    }
    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel(kernel_);
        set_args(k, ctx[inputs()[0]], ctx[outputs()[0]], length_, inner_, exclusive_, reverse_);
        ctx.launch(k, items(lines_));
    }
    std::string exec_type() const override { return kernel_; }

private:
    std::string kernel_;
    cl_int length_ = 1, inner_ = 1, exclusive_ = 0, reverse_ = 0;
    int64_t lines_ = 1;
};

const OpRegistration cum_sum({"CumSum"},
                             {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) -> std::string {
                                  const ElementType t = g.input_type(n, 0);
                                  if (t != ElementType::f32 && t != ElementType::i32 && t != ElementType::i64)
                                      return "CumSum of " + std::string(to_string(t)) + " has no GPU kernel (f32, i32, i64)";
                                  return first_of({check_static_nonempty(g, n),
                                                   shape_size(g.input_shape(n, 0)) >= (int64_t{1} << 31) ? "more than 2^31 elements" : "",
                                                   g.input_count(n) > 1 ? check_constant_input(g, n, 1) : ""});
                              },
                              [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                  return std::make_unique<CumSumExecutor>(ctx, n);
                              }});

}  // namespace

}  // namespace mosaic::gpu_plugin
