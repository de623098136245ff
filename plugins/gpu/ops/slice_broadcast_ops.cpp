// Slice-8 and StridedSlice-1 with constant bounds, Broadcast-1/3 in numpy and bidirectional modes,
// and Tile with constant repeats: each is one strided copy (copy_executor.hpp). A slice reads from the offset of its first
// element with a step per axis (negative ones walk backwards), as the reference kernels' own
// reference::slice_axes / strided_slice_axes compute it; a broadcast reads its broadcast axes with a
// stride of 0. The output shape is static, so a Broadcast's target shape need not be a constant.
// A tile views the output as [repeats, data dim] pairs, the repeats read with a stride of 0.
#include "ops/copy_executor.hpp"

#include <mosaic/reference/slicing.hpp>

#include <optional>
#include <stdexcept>

namespace mosaic::gpu_plugin {

namespace {

// The slice node `n` takes, per data axis; throws std::runtime_error on bad bounds.
std::vector<reference::AxisSlice> axis_slices(const sdk::GraphView& g, size_t n) {
    const Shape data = g.input_shape(n, 0);
    const std::vector<int64_t> begin = constant_ints(g, n, 1), end = constant_ints(g, n, 2);
    std::vector<int64_t> steps(begin.size(), 1);
    if (g.input_count(n) > 3) steps = constant_ints(g, n, 3);
    if (g.type(n) == "StridedSlice") return reference::strided_slice_axes(data, begin, end, steps, g.attributes(n));
    std::vector<int64_t> axes;
    if (g.input_count(n) > 4) {
        axes = constant_ints(g, n, 4);
    } else {
        for (size_t i = 0; i < begin.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    }
    return reference::slice_axes(data, begin, end, steps, axes);
}

std::string check_slice(const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
    if (auto r = check_movable(g, n); !r.empty()) return r;
    for (size_t i = 1; i < g.input_count(n); ++i)
        if (auto r = check_constant_input(g, n, i); !r.empty()) return r;
    try {
        int64_t count = 1;
        for (const auto& s : axis_slices(g, n)) count *= s.count;
        if (count != shape_size(g.output_shape(n, 0))) return "the bounds take " + std::to_string(count) + " elements, the output holds " + std::to_string(shape_size(g.output_shape(n, 0)));
    } catch (const std::runtime_error& e) {
        return std::string("bad bounds: ") + e.what();
    }
    return "";
}

std::unique_ptr<Executor> build_slice(BuildContext& ctx, size_t n) {
    const std::vector<int64_t> in_strides = strides_of(ctx.graph.input_shape(n, 0));
    Shape counts;
    std::vector<int64_t> read;
    Copy c;
    int64_t offset = 0;
    const std::vector<reference::AxisSlice> slices = axis_slices(ctx.graph, n);
    for (size_t d = 0; d < slices.size(); ++d) {
        counts.push_back(slices[d].count);
        read.push_back(slices[d].step * in_strides[d]);
        offset += slices[d].start * in_strides[d];
    }
    c.x_offset = static_cast<cl_int>(offset);
    c.walk = make_walk(counts, read, {}, strides_of(counts));
    c.count = shape_size(counts);
    return copies_of_input(ctx, n, std::vector<Copy>{c});
}

std::string check_broadcast(const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
    if (auto r = check_movable(g, n); !r.empty()) return r;
    const std::string mode = g.attributes(n).get_string("mode", "numpy");
    if (mode != "numpy" && mode != "bidirectional") return "Broadcast in " + mode + " mode has no GPU kernel";
    return "";
}

std::unique_ptr<Executor> build_broadcast(BuildContext& ctx, size_t n) {
    const Shape in = ctx.graph.input_shape(n, 0), out = ctx.graph.output_shape(n, 0);
    Copy c;
    c.walk = make_walk(out, broadcast_strides(in, out), {}, strides_of(out));
    c.count = shape_size(out);
    return copies_of_input(ctx, n, std::vector<Copy>{c});
}

// Tile's output viewed as [r0, d0, r1, d1, ...] (its data's dims left-padded with ones, repeats of
// 1 left out), each repeat read with a stride of 0; nothing when that takes more than a walk's 8 dims.
std::optional<Copy> tile_copy(const sdk::GraphView& g, size_t n) {
    const Shape data = g.input_shape(n, 0), out = g.output_shape(n, 0);
    const std::vector<int64_t> repeats = constant_ints(g, n, 1);
    const size_t rank = out.size();
    if (repeats.size() > rank || data.size() > rank) return std::nullopt;
    Shape aligned(rank - data.size(), 1), reps(rank - repeats.size(), 1);
    aligned.insert(aligned.end(), data.begin(), data.end());
    reps.insert(reps.end(), repeats.begin(), repeats.end());
    const std::vector<int64_t> in_strides = strides_of(aligned);
    Shape dims;
    std::vector<int64_t> read;
    for (size_t d = 0; d < rank; ++d) {
        if (reps[d] != 1) {
            dims.push_back(reps[d]);
            read.push_back(0);
        }
        dims.push_back(aligned[d]);
        read.push_back(in_strides[d]);
    }
    if (dims.size() > static_cast<size_t>(kMaxRank)) return std::nullopt;
    Copy c;
    c.walk = make_walk(dims, read, {}, strides_of(dims));
    c.count = shape_size(dims);
    return c;
}

const OpRegistration slices({"Slice", "StridedSlice"}, {check_slice, build_slice});
const OpRegistration tile({"Tile"},
                          {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) -> std::string {
                               if (auto r = first_of({check_movable(g, n), check_constant_input(g, n, 1)}); !r.empty()) return r;
                               return tile_copy(g, n) ? "" : "a Tile of more than 8 axes and repeats together has no GPU kernel";
                           },
                           [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                               return copies_of_input(ctx, n, std::vector<Copy>{*tile_copy(ctx.graph, n)});
                           }});
const OpRegistration broadcast({"Broadcast"}, {check_broadcast, build_broadcast});

}  // namespace

}  // namespace mosaic::gpu_plugin
