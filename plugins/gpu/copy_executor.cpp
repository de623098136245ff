#include "copy_executor.hpp"

#include <algorithm>

namespace mosaic::gpu_plugin {

std::string word_kernel(ElementType t, bool sixteen) {
    const std::string prefix = sixteen ? "strided_copy16_u" : "strided_copy_u";
    switch (element_size(t)) {
        case 1: return prefix + "8";
        case 2: return prefix + "16";
        case 4: return prefix + "32";
        default: return prefix + "64";
    }
}

namespace {

// Whether a copy moves runs of 16 consecutive elements on both sides (data_movement.cl's
// strided_copy16 kernels): its innermost dimension a multiple of 16 with unit strides.
bool copies_by_sixteen(const Copy& c) {
    const int last = c.walk.rank - 1;
    return last >= 0 && c.walk.dims[last] % 16 == 0 && c.walk.in_strides[last] == 1 && c.walk.out_strides[last] == 1;
}

// The sixteen-element kernels on OpenCL CPU devices only, where they are what gets vector
// instructions; a GPU reads one element a work item in the order its loads coalesce.
bool sixteen_wide(const std::vector<Copy>& copies, const ClDeviceInfo& device) {
    return device.is_cpu_fallback && std::all_of(copies.begin(), copies.end(), copies_by_sixteen);
}

}  // namespace

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
      wide_(sixteen_wide(copies, ctx.engine.info())),
      kernel_(word_kernel(ctx.graph.output_type(n, 0), wide_)),
      copies_(std::move(copies)) {}

void CopyExecutor::enqueue(const ExecContext& ctx) const {
    cl::Kernel& k = ctx.kernel(kernel_);
    for (const Copy& c : copies_) {
        set_args(k, ctx[inputs()[c.input]], c.x_offset, ctx[outputs()[c.output]], c.y_offset, c.walk);
        ctx.launch(k, items(wide_ ? c.count / 16 : c.count));
    }
}

}  // namespace mosaic::gpu_plugin
