#include "ops/copy_executor.hpp"

#include <algorithm>

namespace mosaic::gpu_plugin {

std::string word_kernel(ElementType t, CopyWidth width) {
    const std::string prefix = width == CopyWidth::sixteen    ? "strided_copy16_u"
                               : width == CopyWidth::gather16 ? "strided_gather16_u"
                                                              : "strided_copy_u";
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

// Whether a copy moves one contiguous run to another (a Concat or Split along the outermost axis
// that is not 1, whole leading rows of a slice). Then the driver's buffer copy, a memcpy on OpenCL
// CPU devices, beats a kernel moving one or sixteen elements a work item (SqueezeNet's Concats of
// rows of 55x55 took 3.7 ms each on PoCL that way).
bool is_block_copy(const Copy& c) {
    int64_t dense = 1;
    for (int d = c.walk.rank - 1; d >= 0; --d) {
        if (c.walk.dims[d] == 1) continue;
        if (c.walk.in_strides[d] != dense || c.walk.out_strides[d] != dense) return false;
        dense *= c.walk.dims[d];
    }
    return c.count > 0 && dense == c.count;
}

// Whether a copy writes runs of 16 consecutive elements whose inputs lie a stride apart (a
// transpose that moves the last axis: data_movement.cl's strided_gather16 kernels).
bool gathers_by_sixteen(const Copy& c) {
    const int last = c.walk.rank - 1;
    return last >= 0 && c.walk.dims[last] % 16 == 0 && c.walk.out_strides[last] == 1;
}

CopyWidth copy_width(const std::vector<Copy>& copies, const ClDeviceInfo& device) {
    if (!device.prefers_sixteen_wide()) return CopyWidth::one;
    if (std::all_of(copies.begin(), copies.end(), copies_by_sixteen)) return CopyWidth::sixteen;
    if (std::all_of(copies.begin(), copies.end(), gathers_by_sixteen)) return CopyWidth::gather16;
    return CopyWidth::one;
}

}  // namespace

std::string check_movable(const sdk::GraphView& g, size_t n, bool empty_inputs) {
    if (auto r = check_static_nonempty(g, n, 8, empty_inputs); !r.empty()) return r;
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
      width_(copy_width(copies, ctx.engine.info())),
      kernel_(word_kernel(ctx.device_type(ctx.graph.output_type(n, 0)), width_)),
      copies_(std::move(copies)),
      element_bytes_(element_size(ctx.device_type(ctx.graph.output_type(n, 0)))) {
    for (const Copy& c : copies_) block_.push_back(is_block_copy(c));
}

std::string CopyExecutor::exec_type() const {
    return std::all_of(block_.begin(), block_.end(), [](bool b) { return b; }) ? "copy_buffer" : kernel_;
}

void CopyExecutor::enqueue(const ExecContext& ctx) const {
    for (size_t i = 0; i < copies_.size(); ++i) {
        const Copy& c = copies_[i];
        const cl::Buffer &x = ctx[inputs()[c.input]], &y = ctx[outputs()[c.output]];
        // A buffer copy within one buffer must not overlap (CL_MEM_COPY_OVERLAP): the kernel does those.
        if (block_[i] && x() != y()) {
            ctx.queue().enqueueCopyBuffer(x, y, c.x_offset * element_bytes_, c.y_offset * element_bytes_,
                                          c.count * element_bytes_, nullptr, ctx.next_event());
            continue;
        }
        cl::Kernel& k = ctx.kernel(kernel_);
        set_args(k, x, c.x_offset, y, c.y_offset, c.walk);
        ctx.launch(k, items(width_ == CopyWidth::one ? c.count : c.count / 16));
    }
}

std::unique_ptr<Executor> copies_of_input(const BuildContext& ctx, size_t n, std::vector<Copy> copies) {
    return std::make_unique<CopyExecutor>(ctx, n, std::vector<ValueId>{ctx.values.input(n, 0)},
                                          std::vector<ValueId>{ctx.values.output(n, 0)}, std::move(copies));
}

}  // namespace mosaic::gpu_plugin
