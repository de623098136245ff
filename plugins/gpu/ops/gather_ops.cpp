// Ops that pick elements by indices computed at run time, any element type of 1, 2, 4 or 8 bytes
// (moved as words of its stored size: f32 under the f16 hint is 2 bytes), i32 or i64 indices:
// Gather (batch_dims 0) and GatherElements (negative indices count from the end; one out of range
// gives 0), and OneHot (gather.cl).
#include "ops/compressed_matmul.hpp"
#include "ops/copy_executor.hpp"
#include "kernels/kernel_args.hpp"
#include "ops/op_registry.hpp"

namespace mosaic::gpu_plugin {

namespace {

// Why input `i` of node `n` is not indices a kernel takes, or "".
std::string check_indices(const sdk::GraphView& g, size_t n, size_t i) {
    const ElementType t = g.input_type(n, i);
    if (t != ElementType::i32 && t != ElementType::i64) return g.type(n) + " indices must be i32 or i64 on the GPU";
    return "";
}

// `prefix`_u<bits of element type `data` as stored>_<indices type>: gather_u16_i64, ...
std::string index_kernel(const char* prefix, const BuildContext& ctx, ElementType data, ElementType indices) {
    return std::string(prefix) + "_u" + std::to_string(element_size(ctx.device_type(data)) * 8) + "_" + to_string(indices);
}
std::string index_kernel(const char* prefix, const BuildContext& ctx, size_t n) {
    return index_kernel(prefix, ctx, ctx.graph.input_type(n, 0), ctx.graph.input_type(n, 1));
}

class GatherExecutor : public Executor {
public:
    GatherExecutor(const BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), "Gather", {ctx.values.input(n, 0), ctx.values.input(n, 1)}, {ctx.values.output(n, 0)}) {
        const Shape data = ctx.graph.input_shape(n, 0);
        const size_t axis = static_cast<size_t>(axis_of(constant_ints(ctx.graph, n, 2).at(0), data.size()));
        axis_dim_ = data[axis];
        inner_ = 1;
        for (size_t d = axis + 1; d < data.size(); ++d) inner_ *= data[d];
        indices_ = shape_size(ctx.graph.input_shape(n, 1));
        count_ = shape_size(ctx.graph.output_shape(n, 0));
        kernel_ = index_kernel("gather", ctx, n);
    }
    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel(kernel_);
        set_args(k, ctx[inputs()[0]], ctx[inputs()[1]], ctx[outputs()[0]], static_cast<cl_int>(axis_dim_),
                 static_cast<cl_int>(indices_), static_cast<cl_int>(inner_));
        ctx.launch(k, items(count_));
    }
    std::string exec_type() const override { return kernel_; }

private:
    std::string kernel_;
    int64_t axis_dim_ = 1, inner_ = 1, indices_ = 1, count_ = 1;
};

class GatherElementsExecutor : public Executor {
public:
    GatherElementsExecutor(const BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), "GatherElements", {ctx.values.input(n, 0), ctx.values.input(n, 1)},
                   {ctx.values.output(n, 0)}),
          kernel_(index_kernel("gather_elements", ctx, n)),
          count_(shape_size(ctx.graph.output_shape(n, 0))) {
        const Shape data = ctx.graph.input_shape(n, 0), out = ctx.graph.output_shape(n, 0);
        axis_ = static_cast<cl_int>(axis_of(ctx.graph.attributes(n).get_int("axis", 0), data.size()));
        axis_dim_ = static_cast<cl_int>(data[static_cast<size_t>(axis_)]);
        walk_ = make_walk(out, strides_of(data));
    }
    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel(kernel_);
        set_args(k, ctx[inputs()[0]], ctx[inputs()[1]], ctx[outputs()[0]], walk_, axis_, axis_dim_);
        ctx.launch(k, items(count_));
    }
    std::string exec_type() const override { return kernel_; }

private:
    std::string kernel_;
    int64_t count_;
    Walk walk_;
    cl_int axis_ = 0, axis_dim_ = 1;
};

const OpRegistration gather({"Gather"},
                            {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) -> std::string {
                                 if (auto r = first_of({check_movable(g, n), check_constant_input(g, n, 2)}); !r.empty()) return r;
                                 if (auto r = check_indices(g, n, 1); !r.empty()) return r;
                                 if (g.attributes(n).get_int("batch_dims", 0) != 0) return "Gather with batch_dims has no GPU kernel";
                                 return "";
                             },
                             [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                 if (auto e = compressed_gather(ctx, n)) return e;
                                 return std::make_unique<GatherExecutor>(ctx, n);
                             }});


class OneHotExecutor : public Executor {
public:
    OneHotExecutor(const BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), "OneHot", {ctx.values.input(n, 0), ctx.values.input(n, 2), ctx.values.input(n, 3)},
                   {ctx.values.output(n, 0)}),
          kernel_(index_kernel("one_hot", ctx, ctx.graph.output_type(n, 0), ctx.graph.input_type(n, 0))),
          count_(shape_size(ctx.graph.output_shape(n, 0))) {
        const Shape indices = ctx.graph.input_shape(n, 0);
        const size_t axis = static_cast<size_t>(axis_of(ctx.graph.attributes(n).get_int("axis", -1), indices.size() + 1));
        depth_ = static_cast<cl_int>(ctx.graph.output_shape(n, 0)[axis]);
        int64_t inner = 1;
        for (size_t d = axis; d < indices.size(); ++d) inner *= indices[d];
        inner_ = static_cast<cl_int>(inner);
        normalize_ = ctx.graph.attributes(n).get_string("negative_indices_mode", "ignore-negative") == "normalize" ? 1 : 0;
    }
    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel(kernel_);
        set_args(k, ctx[inputs()[0]], ctx[inputs()[1]], ctx[inputs()[2]], ctx[outputs()[0]], depth_, inner_, normalize_);
        ctx.launch(k, items(count_));
    }
    std::string exec_type() const override { return kernel_; }

private:
    std::string kernel_;
    int64_t count_;
    cl_int depth_ = 1, inner_ = 1, normalize_ = 0;
};

const OpRegistration gather_elements({"GatherElements"},
                                     {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) -> std::string {
                                          return first_of({check_movable(g, n), check_indices(g, n, 1)});
                                      },
                                      [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                          return std::make_unique<GatherElementsExecutor>(ctx, n);
                                      }});

const OpRegistration one_hot({"OneHot"},
                             {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) -> std::string {
                                  return first_of({check_movable(g, n), check_indices(g, n, 0)});
                              },
                              [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                  return std::make_unique<OneHotExecutor>(ctx, n);
                              }});

}  // namespace

}  // namespace mosaic::gpu_plugin
