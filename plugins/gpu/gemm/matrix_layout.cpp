#include "gemm/matrix_layout.hpp"

#include "ops/copy_executor.hpp"
#include "kernels/kernel_args.hpp"
#include "ops/op_registry.hpp"

namespace mosaic::gpu_plugin {

namespace {

// The Transpose's order (its input 1; none: the axes reversed), or empty when not known.
std::vector<size_t> transpose_order(const sdk::GraphView& g, size_t t) {
    const size_t rank = g.input_shape(t, 0).size();
    std::vector<size_t> order;
    if (g.input_count(t) < 2) {
        for (size_t d = rank; d-- > 0;) order.push_back(d);
        return order;
    }
    const std::vector<int64_t> given = constant_ints(g, t, 1);
    if (given.size() != rank) return {};
    for (int64_t a : given) order.push_back(static_cast<size_t>(axis_of(a, rank)));
    return order;
}

// The only node reading `v`, when it runs here (a Result counts as a reader that does not).
std::optional<size_t> sole_running_reader(const ValueTable& values, ValueId v) {
    if (values[v].uses.size() != 1) return std::nullopt;
    const size_t reader = values[v].uses[0].node;
    return values.runs(reader) ? std::optional<size_t>(reader) : std::nullopt;
}

bool is_f32_matmul(const sdk::GraphView& g, size_t n) {
    return g.type(n) == "MatMul" && g.output_type(n, 0) == ElementType::f32;
}

}  // namespace

std::optional<MatrixLayout> matrix_layout(const Shape& shape, const std::vector<int64_t>& strides) {
    const size_t r = shape.size();
    if (r < 2 || strides.size() != r) return std::nullopt;
    MatrixLayout layout;
    const auto rows = static_cast<size_t>(shape[r - 2]), columns = static_cast<size_t>(shape[r - 1]);
    if (strides[r - 1] == 1 || columns == 1) {
        layout.ld = rows == 1 ? columns : static_cast<size_t>(strides[r - 2]);
    } else if (strides[r - 2] == 1 || rows == 1) {
        layout.transposed = true;
        layout.ld = columns == 1 ? rows : static_cast<size_t>(strides[r - 1]);
    } else {
        return std::nullopt;
    }
    // Batch dims of one element have no stride to keep; the others must nest as a dense walk
    // over them would: each one's stride the next inner one's times that one's size.
    size_t span = 0;  // what the next outer batch dim's stride must be; 0: no batch dim met yet
    for (size_t d = r - 2; d-- > 0;) {
        if (shape[d] == 1) continue;
        const auto stride = static_cast<size_t>(strides[d]);
        if (span == 0) layout.batch_stride = stride;
        else if (stride != span) return std::nullopt;
        span = stride * static_cast<size_t>(shape[d]);
    }
    return layout;
}

std::optional<TransposeRead> transpose_read_by_matmul(const sdk::GraphView& g, const ValueTable& values, size_t t) {
    if (g.type(t) != "Transpose" || !values.runs(t)) return std::nullopt;
    const std::optional<size_t> reader = sole_running_reader(values, values.output(t, 0));
    if (!reader || !is_f32_matmul(g, *reader)) return std::nullopt;
    const std::vector<size_t> order = transpose_order(g, t);
    if (order.empty()) return std::nullopt;
    // Element (i_0, i_1, ...) of the Transpose's output is element i_d at axis order[d] of its input.
    const std::vector<int64_t> in_strides = strides_of(g.input_shape(t, 0));
    std::vector<int64_t> strides;
    for (size_t a : order) strides.push_back(in_strides[a]);
    const std::optional<MatrixLayout> layout = matrix_layout(g.output_shape(t, 0), strides);
    if (!layout) return std::nullopt;
    return TransposeRead{*reader, values[values.output(t, 0)].uses[0].port, values.input(t, 0), *layout};
}

std::optional<TransposeWrite> transpose_written_by_matmul(const sdk::GraphView& g, const ValueTable& values, size_t m) {
    const std::optional<size_t> reader = sole_running_reader(values, values.output(m, 0));
    if (!reader || g.type(*reader) != "Transpose") return std::nullopt;
    const std::vector<size_t> order = transpose_order(g, *reader);
    if (order.empty()) return std::nullopt;
    // Axis order[q] of the MatMul's result is axis q of the Transpose's output.
    const std::vector<int64_t> out_strides = strides_of(g.output_shape(*reader, 0));
    std::vector<int64_t> strides(order.size());
    for (size_t q = 0; q < order.size(); ++q) strides[order[q]] = out_strides[q];
    const std::optional<MatrixLayout> layout = matrix_layout(g.output_shape(m, 0), strides);
    if (!layout || layout->transposed) return std::nullopt;
    return TransposeWrite{*reader, *layout};
}

}  // namespace mosaic::gpu_plugin
