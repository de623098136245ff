// Ops that move elements without computing, any element type of 1, 2, 4 or 8 bytes: Reshape,
// Squeeze and Unsqueeze (views: nothing runs, value_table.hpp), Transpose, DepthToSpace,
// SpaceToDepth, Concat (empty inputs skipped), Split and VariadicSplit, Roll, Identity (strided copies) and Convert
// between f32, i32, i64, u8 and boolean. Slice and Broadcast are in slice_broadcast_ops.cpp, Gather and GatherElements in
// gather_ops.cpp.
#include "ops/copy_executor.hpp"
#include "kernels/kernel_args.hpp"
#include "gemm/matrix_layout.hpp"
#include "ops/op_registry.hpp"

#include <mosaic/reference/block_permutation.hpp>
#include <mosaic/sdk/status.hpp>

#include <array>

namespace mosaic::gpu_plugin {

namespace {

std::unique_ptr<Executor> build_transpose(BuildContext& ctx, size_t n) {
    if (transpose_read_by_matmul(ctx.graph, ctx.values, n)) return nullptr;  // the MatMul after it walks its input
    const Shape in = ctx.graph.input_shape(n, 0), out = ctx.graph.output_shape(n, 0);
    std::vector<int64_t> order = constant_ints(ctx.graph, n, 1);
    if (order.empty())  // no order: reverse the axes
        for (size_t d = in.size(); d-- > 0;) order.push_back(static_cast<int64_t>(d));
    const std::vector<int64_t> in_strides = strides_of(in);
    std::vector<int64_t> read(out.size());
    for (size_t d = 0; d < out.size(); ++d) read[d] = in_strides[static_cast<size_t>(axis_of(order[d], in.size()))];
    Copy c;
    c.walk = make_walk(out, read, {}, strides_of(out));
    c.count = shape_size(out);
    return copies_of_input(ctx, n, std::vector<Copy>{c});
}

// DepthToSpace and SpaceToDepth: the reference's split view of the input, permuted, as one copy.
std::unique_ptr<Executor> build_block_permutation(BuildContext& ctx, size_t n) {
    const Shape in = ctx.graph.input_shape(n, 0);
    const Attributes attrs = ctx.graph.attributes(n);
    const int64_t block = attrs.get_int("block_size", 1);
    const bool blocks_first = attrs.get_string("mode", "blocks_first") == "blocks_first";
    const reference::BlockPermutation p = ctx.graph.type(n) == "DepthToSpace"
                                              ? reference::depth_to_space_permutation(in, block, blocks_first)
                                              : reference::space_to_depth_permutation(in, block, blocks_first);
    const std::vector<int64_t> split_strides = strides_of(p.split);
    Shape dims;
    std::vector<int64_t> read;
    for (int64_t axis : p.order) {
        dims.push_back(p.split[static_cast<size_t>(axis)]);
        read.push_back(split_strides[static_cast<size_t>(axis)]);
    }
    Copy c;
    c.walk = make_walk(dims, read, {}, strides_of(dims));
    c.count = shape_size(dims);
    return copies_of_input(ctx, n, std::vector<Copy>{c});
}

// Roll: along each rolled axis the data is two runs that swap places ([0, d - s) moves to s, the
// last s elements to 0), so k rolled axes are 2^k strided copies (Swin's shifted windows: four).
std::unique_ptr<Executor> build_roll(BuildContext& ctx, size_t n) {
    const Shape shape = ctx.graph.input_shape(n, 0);
    const std::vector<int64_t> shift = constant_ints(ctx.graph, n, 1), axes = constant_ints(ctx.graph, n, 2);
    // Shifts of a repeated axis add up, each reduced first (their sum could pass 64 bits).
    std::vector<int64_t> total(shape.size(), 0);
    for (size_t i = 0; i < axes.size(); ++i) {
        const size_t axis = static_cast<size_t>(axis_of(axes[i], shape.size()));
        const int64_t dim = shape[axis];
        total[axis] = (total[axis] + (shift[shift.size() == 1 ? 0 : i] % dim + dim) % dim) % dim;
    }
    const std::vector<int64_t> strides = strides_of(shape);
    // Per axis, its runs as (source start, destination start, length).
    std::vector<std::vector<std::array<int64_t, 3>>> runs(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
        const int64_t dim = shape[d], s = total[d];
        runs[d].push_back({0, s, dim - s});
        if (s != 0) runs[d].push_back({dim - s, 0, s});
    }
    std::vector<Copy> copies;
    std::vector<size_t> pick(shape.size(), 0);
    while (true) {
        Copy c;
        Shape dims(shape.size());
        int64_t from = 0, to = 0;
        for (size_t d = 0; d < shape.size(); ++d) {
            const auto& [source, destination, length] = runs[d][pick[d]];
            from += source * strides[d];
            to += destination * strides[d];
            dims[d] = length;
        }
        c.x_offset = static_cast<cl_int>(from);
        c.y_offset = static_cast<cl_int>(to);
        c.walk = make_walk(dims, strides, {}, strides);
        c.count = shape_size(dims);
        copies.push_back(c);
        size_t d = shape.size();  // the next combination of runs, the last axis fastest
        while (d > 0 && ++pick[d - 1] == runs[d - 1].size()) pick[--d] = 0;
        if (d == 0) break;
    }
    return copies_of_input(ctx, n, std::move(copies));
}

// Identity-16 that a Result reads (the framework bypasses the others, graph_edit.hpp): one copy.
std::unique_ptr<Executor> build_identity(BuildContext& ctx, size_t n) {
    const Shape shape = ctx.graph.input_shape(n, 0);
    Copy c;
    c.walk = make_walk(shape, strides_of(shape), {}, strides_of(shape));
    c.count = shape_size(shape);
    return copies_of_input(ctx, n, std::vector<Copy>{c});
}

std::unique_ptr<Executor> build_concat(BuildContext& ctx, size_t n) {
    const Shape out = ctx.graph.output_shape(n, 0);
    const size_t axis = static_cast<size_t>(axis_of(ctx.graph.attributes(n).get_int("axis"), out.size()));
    const std::vector<int64_t> out_strides = strides_of(out);
    std::vector<ValueId> inputs;
    std::vector<Copy> copies;
    int64_t at = 0;
    for (size_t i = 0; i < ctx.graph.input_count(n); ++i) {
        const Shape in = ctx.graph.input_shape(n, i);
        inputs.push_back(ctx.values.input(n, i));
        Copy c;
        c.input = i;
        c.y_offset = static_cast<cl_int>(at * out_strides[axis]);
        c.walk = make_walk(in, strides_of(in), {}, out_strides);
        c.count = shape_size(in);
        if (c.count) copies.push_back(c);
        at += in[axis];
    }
    return std::make_unique<CopyExecutor>(ctx, n, inputs, std::vector<ValueId>{ctx.values.output(n, 0)}, copies);
}

std::unique_ptr<Executor> build_split(BuildContext& ctx, size_t n) {
    const Shape in = ctx.graph.input_shape(n, 0);
    const size_t axis = static_cast<size_t>(axis_of(constant_ints(ctx.graph, n, 1).at(0), in.size()));
    const std::vector<int64_t> in_strides = strides_of(in);
    std::vector<ValueId> outputs;
    std::vector<Copy> copies;
    int64_t at = 0;
    for (size_t o = 0; o < ctx.graph.output_count(n); ++o) {
        const Shape part = ctx.graph.output_shape(n, o);
        outputs.push_back(ctx.values.output(n, o));
        Copy c;
        c.output = o;
        c.x_offset = static_cast<cl_int>(at * in_strides[axis]);
        c.walk = make_walk(part, in_strides, {}, strides_of(part));
        c.count = shape_size(part);
        if (c.count) copies.push_back(c);
        at += part[axis];
    }
    return std::make_unique<CopyExecutor>(ctx, n, std::vector<ValueId>{ctx.values.input(n, 0)}, outputs, copies);
}

std::string convert_kernel(ElementType from, ElementType to) {
    return std::string("convert_") + to_string(from) + "_" + to_string(to);
}

bool has_convert_kernel(ElementType from, ElementType to) {
    // data_movement.cl's CONVERT list.
    static const char* kernels[] = {
        "convert_f32_i32",     "convert_f32_i64",     "convert_f32_u8",      "convert_f32_boolean", "convert_i32_f32",
        "convert_i64_f32",     "convert_u8_f32",      "convert_boolean_f32", "convert_i32_i64",     "convert_i64_i32",
        "convert_boolean_i32", "convert_boolean_i64", "convert_i32_boolean", "convert_i64_boolean", "convert_u8_boolean",
        "convert_boolean_u8",  "convert_u8_i32",      "convert_u8_i64",      "convert_i32_u8",      "convert_i64_u8",
        "convert_f32_i8",      "convert_i8_f32"};
    for (const char* k : kernels)
        if (convert_kernel(from, to) == k) return true;
    return false;
}

class ConvertExecutor : public Executor {
public:
    ConvertExecutor(const BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), "Convert", {ctx.values.input(n, 0)}, {ctx.values.output(n, 0)}),
          same_(ctx.graph.input_type(n, 0) == ctx.graph.output_type(n, 0)),
          kernel_(same_ ? word_kernel(ctx.device_type(ctx.graph.output_type(n, 0))) : convert_kernel(ctx.graph.input_type(n, 0), ctx.graph.output_type(n, 0))),
          count_(shape_size(ctx.graph.output_shape(n, 0))) {
        const Shape s = ctx.graph.output_shape(n, 0);
        walk_ = make_walk(s, strides_of(s), {}, strides_of(s));
    }
    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel(kernel_);
        if (same_)
            set_args(k, ctx[inputs()[0]], cl_int{0}, ctx[outputs()[0]], cl_int{0}, walk_);
        else
            set_args(k, ctx[inputs()[0]], ctx[outputs()[0]]);
        ctx.launch(k, items(count_));
    }
    std::string exec_type() const override { return kernel_; }

private:
    bool same_;
    std::string kernel_;
    int64_t count_;
    Walk walk_;
};

const OpRegistration views({"Reshape", "Squeeze", "Unsqueeze"},
                           {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) { return check_static_nonempty(g, n); },
                            [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                throw sdk::Error(MOSAIC_ERROR_GENERAL, "GPU plugin bug: the view '" + ctx.graph.node_name(n) + "' was asked to run");
                            }});

const OpRegistration transpose({"Transpose"},
                               {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
                                    return first_of({check_movable(g, n), g.input_count(n) > 1 ? check_constant_input(g, n, 1) : ""});
                                },
                                build_transpose});

const OpRegistration depth_space({"DepthToSpace", "SpaceToDepth"},
                                 {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) -> std::string {
                                      if (auto r = check_movable(g, n); !r.empty()) return r;
                                      // The split view has rank 2 + 2K: within a walk's 8 dims up to K = 3.
                                      if (g.input_shape(n, 0).size() > 5) return "more than 3 spatial axes";
                                      return "";
                                  },
                                  build_block_permutation});

// An empty input adds nothing (build_concat skips it): the past of a KV cache on generation's first step.
const OpRegistration concat({"Concat"}, {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) { return check_movable(g, n, true); },
                                         build_concat});

const OpRegistration roll({"Roll"}, {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
                                        return first_of({check_movable(g, n), check_constant_input(g, n, 1),
                                                         check_constant_input(g, n, 2)});
                                    },
                                    build_roll});

const OpRegistration identity({"Identity"}, {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) { return check_movable(g, n); },
                                             build_identity});

const OpRegistration split({"Split", "VariadicSplit"},
                           {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
                                return first_of({check_movable(g, n), check_constant_input(g, n, 1)});
                            },
                            build_split});

const OpRegistration convert({"Convert"},
                             {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) -> std::string {
                                  if (auto r = check_movable(g, n); !r.empty()) return r;
                                  const ElementType from = g.input_type(n, 0), to = g.output_type(n, 0);
                                  if (from != to && !has_convert_kernel(from, to))
                                      return "Convert " + std::string(to_string(from)) + " to " + to_string(to) + " has no GPU kernel";
                                  return "";
                              },
                              [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> { return std::make_unique<ConvertExecutor>(ctx, n); }});

}  // namespace

}  // namespace mosaic::gpu_plugin
