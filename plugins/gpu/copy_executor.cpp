#include "copy_executor.hpp"

namespace mosaic::gpu_plugin {

std::string word_kernel(ElementType t) {
    switch (element_size(t)) {
        case 1: return "strided_copy_u8";
        case 2: return "strided_copy_u16";
        case 4: return "strided_copy_u32";
        default: return "strided_copy_u64";
    }
}

std::string check_movable(const sdk::GraphView& g, size_t n) {
    if (auto r = check_static_nonempty(g, n); !r.empty()) return r;
    const size_t bytes = element_size(g.output_type(n, 0));
    if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
        return "element type " + std::string(to_string(g.output_type(n, 0))) + " has no GPU copy kernel";
    if (shape_size(g.input_shape(n, 0)) >= (int64_t{1} << 31) || shape_size(g.output_shape(n, 0)) >= (int64_t{1} << 31))
        return "more than 2^31 elements";
    return "";
}

int64_t axis_of(int64_t axis, size_t rank) { return axis < 0 ? axis + static_cast<int64_t>(rank) : axis; }

CopyExecutor::CopyExecutor(const BuildContext& ctx, size_t n, std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                           std::vector<Copy> copies)
    : Executor(ctx.graph.node_name(n), ctx.graph.type(n), std::move(inputs), std::move(outputs)),
      kernel_(word_kernel(ctx.graph.output_type(n, 0))),
      copies_(std::move(copies)) {}

void CopyExecutor::enqueue(const ExecContext& ctx) const {
    cl::Kernel& k = ctx.kernel(kernel_);
    for (const Copy& c : copies_) {
        set_args(k, ctx[inputs()[c.input]], c.x_offset, ctx[outputs()[c.output]], c.y_offset, c.walk);
        ctx.launch(k, items(c.count));
    }
}

}  // namespace mosaic::gpu_plugin
