// Reference kernel of MatMul-1: a batch of matrix products with numpy broadcasting of the batch
// axes. A 1-D A is a row [1, K], a 1-D B a column [K, 1]; transposes apply to rank >= 2 only.
#include "nn_kernels.hpp"

#include <algorithm>

namespace mosaic::reference::nn {

namespace {

struct Operand {
    Shape shape;       // promoted to rank >= 2
    bool transposed;   // whether the stored matrix is [cols, rows] of the logical one
    int64_t rows = 0, cols = 0;
};

Operand operand(const Shape& s, bool is_a, bool transpose) {
    Operand op{s, s.size() > 1 && transpose};
    if (s.size() == 1) op.shape.insert(is_a ? op.shape.begin() : op.shape.end(), 1);
    const int64_t r = op.shape[op.shape.size() - 2], c = op.shape.back();
    op.rows = op.transposed ? c : r;
    op.cols = op.transposed ? r : c;
    return op;
}

// Offset of a broadcast batch coordinate into an operand with batch dims `dims` (left-padded with 1s).
int64_t batch_offset(const std::vector<int64_t>& coord, const Shape& dims, int64_t matrix_size) {
    const size_t pad = coord.size() - dims.size();
    int64_t offset = 0;
    for (size_t i = 0; i < dims.size(); ++i) offset = offset * dims[i] + (dims[i] == 1 ? 0 : coord[pad + i]);
    return offset * matrix_size;
}

template <typename T>
void matmul(const KernelArgs& args) {
    using Acc = Accumulator<T>;
    const Operand a = operand(args.inputs[0].shape, true, args.attrs.get_bool("transpose_a", false));
    const Operand b = operand(args.inputs[1].shape, false, args.attrs.get_bool("transpose_b", false));
    if (a.cols != b.rows)
        throw std::runtime_error("MatMul: inner dimensions differ for shapes " + to_string(args.inputs[0].shape) +
                                 " and " + to_string(args.inputs[1].shape));
    const int64_t M = a.rows, K = a.cols, N = b.cols;
    const Shape a_batch(a.shape.begin(), a.shape.end() - 2), b_batch(b.shape.begin(), b.shape.end() - 2);
    Shape batch(std::max(a_batch.size(), b_batch.size()), 1);
    for (size_t i = 0; i < batch.size(); ++i) {
        const size_t from_end = batch.size() - i;
        const int64_t da = from_end <= a_batch.size() ? a_batch[a_batch.size() - from_end] : 1;
        const int64_t db = from_end <= b_batch.size() ? b_batch[b_batch.size() - from_end] : 1;
        batch[i] = da == 1 ? db : da;
    }

    const T* pa = args.inputs[0].as<T>();
    const T* pb = args.inputs[1].as<T>();
    T* pc = args.outputs[0].as<T>();
    NdIndex it(batch);
    if (!it.valid()) return;
    do {
        const T* ma = pa + batch_offset(it.coord, a_batch, M * K);
        const T* mb = pb + batch_offset(it.coord, b_batch, K * N);
        for (int64_t m = 0; m < M; ++m)
            for (int64_t n = 0; n < N; ++n) {
                Acc acc = 0;
                for (int64_t k = 0; k < K; ++k) {
                    const T va = a.transposed ? ma[k * M + m] : ma[m * K + k];
                    const T vb = b.transposed ? mb[n * K + k] : mb[k * N + n];
                    acc += static_cast<Acc>(va) * static_cast<Acc>(vb);
                }
                *pc++ = static_cast<T>(acc);
            }
    } while (it.next());
}

void matmul_kernel(const KernelArgs& args) {
    dispatch_numeric(args, args.inputs[0].type, [&](auto tag) { matmul<decltype(tag)>(args); });
}

}  // namespace

void register_matmul_kernels(KernelRegistry& r) { r.add("MatMul", {"opset1"}, matmul_kernel); }

}  // namespace mosaic::reference::nn
