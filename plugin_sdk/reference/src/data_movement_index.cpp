// Reference kernels of GatherND (opset5, opset8), GatherElements, OneHot, ReverseSequence, Eye,
// Roll, NonZero and CumSum. The ops that only move elements work on raw bytes and serve every
// element type; Eye, NonZero and CumSum look at values and dispatch on the type.
//
// Negative gather indices count from the end of their axis (GatherND-8 and ONNX specify it, and
// OpenVINO's implementation of the older versions does the same); an index still out of range is an
// error rather than the zeros Gather produces, since these ops have no such rule.
#include "data_movement_kernels.hpp"
#include "data_movement_util.hpp"
#include "type_dispatch.hpp"

#include <cmath>
#include <type_traits>

namespace mosaic::reference {

namespace {

int64_t normalize_index(const KernelArgs& args, int64_t index, int64_t size, int64_t axis) {
    dm::check(args, index >= -size && index < size,
              "index " + std::to_string(index) + " is out of range [" + std::to_string(-size) + ", " +
                  std::to_string(size - 1) + "] for axis " + std::to_string(axis) + " of size " + std::to_string(size));
    return index < 0 ? index + size : index;
}

int64_t normalize_axis(const KernelArgs& args, int64_t axis, int64_t rank, const char* what) {
    dm::check(args, axis >= -rank && axis < rank,
              std::string(what) + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    return axis < 0 ? axis + rank : axis;
}

// The single value of a scalar input.
int64_t scalar_input(const KernelArgs& args, size_t i, const char* what) {
    const std::vector<int64_t> v = dm::read_ints(args, args.inputs[i], what);
    dm::check(args, v.size() == 1, std::string(what) + " must hold one value, got " + std::to_string(v.size()));
    return v[0];
}

int64_t product(const Shape& shape, size_t begin, size_t end) {
    int64_t n = 1;
    for (size_t d = begin; d < end; ++d) n *= shape[d];
    return n;
}

void write_index(const TensorView& out, int64_t at, int64_t value) {
    if (out.type == ElementType::i32) out.as<int32_t>()[at] = static_cast<int32_t>(value);
    else out.as<int64_t>()[at] = value;
}

// ---------------------------------------------------------------------------------------------
// GatherND: per batch, each index tuple of length k picks the slice data[batch][tuple][...].

void gather_nd_kernel(const KernelArgs& args) {
    dm::check_io(args, 2, 1);
    const ConstTensorView& data = args.inputs[0];
    const Shape& ishape = args.inputs[1].shape;
    const std::vector<int64_t> indices = dm::read_ints(args, args.inputs[1], "indices");
    const auto b = static_cast<size_t>(args.attrs.get_int("batch_dims", 0));
    dm::check(args, !ishape.empty() && b < ishape.size() && b < data.shape.size(), "batch_dims is out of range");
    const auto k = static_cast<size_t>(ishape.back());
    dm::check(args, b + k <= data.shape.size(), "index tuples are longer than the non-batch rank of data");
    for (size_t d = 0; d < b; ++d)
        dm::check(args, data.shape[d] == ishape[d], "batch dimensions of data and indices differ");

    Shape expected(ishape.begin(), ishape.begin() + b);
    if (args.version == "opset5" && b > 1) expected = {product(ishape, 0, b)};
    expected.insert(expected.end(), ishape.begin() + b, ishape.end() - 1);
    expected.insert(expected.end(), data.shape.begin() + b + k, data.shape.end());
    dm::check_shape(args, args.outputs[0].shape, expected, "output");

    const std::vector<int64_t> strides = dm::strides_of(data.shape);
    const int64_t batches = product(ishape, 0, b), tuples = product(ishape, b, ishape.size() - 1);
    const int64_t batch_stride = product(data.shape, b, data.shape.size());
    const size_t esize = element_size(data.type);
    const int64_t slice = product(data.shape, b + k, data.shape.size());
    auto* dst = args.outputs[0].as<uint8_t>();
    for (int64_t batch = 0; batch < batches; ++batch)
        for (int64_t t = 0; t < tuples; ++t) {
            const int64_t* tuple = indices.data() + (batch * tuples + t) * static_cast<int64_t>(k);
            int64_t from = batch * batch_stride;
            for (size_t j = 0; j < k; ++j)
                from += normalize_index(args, tuple[j], data.shape[b + j], static_cast<int64_t>(b + j)) * strides[b + j];
            const size_t bytes = static_cast<size_t>(slice) * esize;
            if (bytes) std::memcpy(dst, data.as<uint8_t>() + from * static_cast<int64_t>(esize), bytes);
            dst += bytes;
        }
}

// ---------------------------------------------------------------------------------------------
// GatherElements: out[i][j][k] = data[i][indices[i][j][k]][k] for axis 1, and so on.

void gather_elements_kernel(const KernelArgs& args) {
    dm::check_io(args, 2, 1);
    const ConstTensorView& data = args.inputs[0];
    const Shape& ishape = args.inputs[1].shape;
    const std::vector<int64_t> indices = dm::read_ints(args, args.inputs[1], "indices");
    const int64_t rank = static_cast<int64_t>(data.shape.size());
    dm::check(args, static_cast<int64_t>(ishape.size()) == rank, "indices must have the rank of data");
    const int64_t axis = normalize_axis(args, args.attrs.get_int("axis"), rank, "axis");
    dm::check_shape(args, args.outputs[0].shape, ishape, "output");
    for (int64_t d = 0; d < rank; ++d)
        dm::check(args, d == axis || ishape[d] == data.shape[d], "indices and data differ off the gather axis");

    const std::vector<int64_t> strides = dm::strides_of(data.shape);
    const size_t esize = element_size(data.type);
    int64_t i = 0;
    dm::for_each_index(ishape, [&](const std::vector<int64_t>& at) {
        int64_t from = 0;
        for (int64_t d = 0; d < rank; ++d)
            from += (d == axis ? normalize_index(args, indices[i], data.shape[d], axis) : at[d]) * strides[d];
        dm::copy_element(args.outputs[0].data, i++, data.data, from, esize);
    });
}

// ---------------------------------------------------------------------------------------------
// OneHot: a new axis of `depth` entries, on_value where it equals the index and off_value elsewhere.

void one_hot_kernel(const KernelArgs& args) {
    dm::check(args, args.inputs.size() == 4 && args.outputs.size() == 1, "expected 4 inputs and 1 output");
    const ConstTensorView& on = args.inputs[2];
    const ConstTensorView& off = args.inputs[3];
    const TensorView& out = args.outputs[0];
    dm::check(args, out.type == on.type && off.type == on.type && on.size() == 1 && off.size() == 1,
              "on_value and off_value must be single values of the output's element type");
    const Shape& ishape = args.inputs[0].shape;
    const std::vector<int64_t> indices = dm::read_ints(args, args.inputs[0], "indices");
    const int64_t depth = scalar_input(args, 1, "depth");
    const int64_t axis = normalize_axis(args, args.attrs.get_int("axis"), static_cast<int64_t>(ishape.size()) + 1, "axis");
    const bool normalize = args.attrs.get_string("negative_indices_mode", "ignore-negative") == "normalize";
    Shape expected = ishape;
    expected.insert(expected.begin() + axis, depth);
    dm::check_shape(args, out.shape, expected, "output");

    const int64_t inner = product(ishape, static_cast<size_t>(axis), ishape.size());
    const int64_t outer = inner == 0 ? 0 : static_cast<int64_t>(indices.size()) / inner;
    const size_t esize = element_size(out.type);
    int64_t to = 0;
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t d = 0; d < depth; ++d)
            for (int64_t in = 0; in < inner; ++in) {
                int64_t index = indices[static_cast<size_t>(o * inner + in)];
                if (normalize && index < 0) index += depth;
                dm::copy_element(out.data, to++, index == d ? on.data : off.data, 0, esize);
            }
}

// ---------------------------------------------------------------------------------------------
// ReverseSequence: along seq_axis, the first seq_lengths[b] elements of batch b in reverse order.

void reverse_sequence_kernel(const KernelArgs& args) {
    dm::check_io(args, 2, 1);
    const ConstTensorView& data = args.inputs[0];
    const int64_t rank = static_cast<int64_t>(data.shape.size());
    const int64_t batch_axis = normalize_axis(args, args.attrs.get_int("batch_axis", 0), rank, "batch_axis");
    const int64_t seq_axis = normalize_axis(args, args.attrs.get_int("seq_axis", 1), rank, "seq_axis");
    dm::check_shape(args, args.outputs[0].shape, data.shape, "output");
    std::vector<int64_t> lengths;
    dispatch<kNumeric>(args.inputs[1].type, args.op_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* p = args.inputs[1].as<T>();
        for (int64_t i = 0; i < args.inputs[1].size(); ++i) lengths.push_back(static_cast<int64_t>(p[i]));
    });
    dm::check(args, static_cast<int64_t>(lengths.size()) == data.shape[batch_axis],
              "seq_lengths must hold one value per batch");
    for (int64_t length : lengths)
        dm::check(args, length >= 0 && length <= data.shape[seq_axis],
                  "sequence length " + std::to_string(length) + " is out of range [0, " +
                      std::to_string(data.shape[seq_axis]) + "]");

    const std::vector<int64_t> strides = dm::strides_of(data.shape);
    const size_t esize = element_size(data.type);
    int64_t to = 0;
    dm::for_each_index(data.shape, [&](const std::vector<int64_t>& at) {
        const int64_t length = lengths[static_cast<size_t>(at[batch_axis])], pos = at[seq_axis];
        const int64_t from_pos = pos < length ? length - 1 - pos : pos;
        const int64_t from = to + (from_pos - pos) * strides[seq_axis];
        dm::copy_element(args.outputs[0].data, to++, data.data, from, esize);
    });
}

// ---------------------------------------------------------------------------------------------
// Eye: batches of matrices with ones on diagonal `diagonal_index` (positive: above the main one).

void eye_kernel(const KernelArgs& args) {
    dm::check(args, args.inputs.size() >= 3 && args.outputs.size() == 1, "expected 3 or 4 inputs and 1 output");
    const TensorView& out = args.outputs[0];
    const int64_t rows = scalar_input(args, 0, "num_rows"), columns = scalar_input(args, 1, "num_columns");
    const int64_t diagonal = scalar_input(args, 2, "diagonal_index");
    Shape expected = dm::read_optional_ints(args, 3, "batch_shape");
    expected.push_back(rows);
    expected.push_back(columns);
    dm::check_shape(args, out.shape, expected, "output");
    dispatch<kAnyType>(out.type, args.op_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* p = out.as<T>();
        const int64_t matrix = rows * columns;
        for (int64_t i = 0; i < out.size(); ++i) p[i] = T(0);
        // A diagonal outside the matrix (diagonal_index may be any int64) sets nothing; inside it,
        // r + diagonal cannot overflow.
        if (diagonal >= columns || diagonal <= -rows) return;
        for (int64_t m = 0; matrix > 0 && m < out.size() / matrix; ++m)
            for (int64_t r = 0; r < rows; ++r)
                if (r + diagonal >= 0 && r + diagonal < columns) p[m * matrix + r * columns + r + diagonal] = T(1);
    });
}

// ---------------------------------------------------------------------------------------------
// Roll: elements shift cyclically along each axis; shifts of a repeated axis add up.

void roll_kernel(const KernelArgs& args) {
    dm::check_io(args, 3, 1);
    const ConstTensorView& data = args.inputs[0];
    const int64_t rank = static_cast<int64_t>(data.shape.size());
    const std::vector<int64_t> shift = dm::read_ints(args, args.inputs[1], "shift");
    const std::vector<int64_t> axes = dm::read_ints(args, args.inputs[2], "axes");
    dm::check(args, shift.size() == axes.size() || shift.size() == 1,
              "shift must hold one value, or one per axis (" + std::to_string(axes.size()) + ")");
    dm::check_shape(args, args.outputs[0].shape, data.shape, "output");
    // Each shift reduced before they add up: the sum of a repeated axis's shifts could pass 64 bits.
    std::vector<int64_t> total(static_cast<size_t>(rank), 0);
    for (size_t i = 0; i < axes.size(); ++i) {
        const int64_t axis = normalize_axis(args, axes[i], rank, "axis");
        const int64_t dim = data.shape[axis];
        if (dim > 0) total[axis] = (total[axis] + (shift[shift.size() == 1 ? 0 : i] % dim + dim) % dim) % dim;
    }

    const std::vector<int64_t> strides = dm::strides_of(data.shape);
    const size_t esize = element_size(data.type);
    int64_t from = 0;
    dm::for_each_index(data.shape, [&](const std::vector<int64_t>& at) {
        int64_t to = 0;
        for (int64_t d = 0; d < rank; ++d) to += (at[d] + total[d]) % data.shape[d] * strides[d];
        dm::copy_element(args.outputs[0].data, to, data.data, from++, esize);
    });
}

// ---------------------------------------------------------------------------------------------
// NonZero: the coordinates of the non-zero elements, one row per axis, in row-major order.

void non_zero_kernel(const KernelArgs& args) {
    dm::check(args, args.inputs.size() == 1 && args.outputs.size() == 1, "expected 1 input and 1 output");
    const ConstTensorView& data = args.inputs[0];
    const TensorView& out = args.outputs[0];
    dm::check(args, out.type == ElementType::i32 || out.type == ElementType::i64,
              std::string("output element type must be i32 or i64, got ") + to_string(out.type));
    std::vector<int64_t> found;
    dispatch<kAnyType>(data.type, args.op_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* p = data.as<T>();
        for (int64_t i = 0; i < data.size(); ++i)
            if (p[i] != T(0)) found.push_back(i);
    });
    const int64_t rank = static_cast<int64_t>(data.shape.size()), count = static_cast<int64_t>(found.size());
    dm::check_shape(args, out.shape, Shape{rank, count}, "output");
    const std::vector<int64_t> strides = dm::strides_of(data.shape);
    for (int64_t j = 0; j < count; ++j)
        for (int64_t d = 0; d < rank; ++d) write_index(out, d * count + j, found[j] / strides[d] % data.shape[d]);
}

// ---------------------------------------------------------------------------------------------
// CumSum: running sums along an axis, optionally exclusive (shifted by one) and from the end.

template <typename T>
void cum_sum_typed(const KernelArgs& args, int64_t outer, int64_t length, int64_t inner) {
    const bool exclusive = args.attrs.get_bool("exclusive", false), reverse = args.attrs.get_bool("reverse", false);
    const T* x = args.inputs[0].as<T>();
    T* y = args.outputs[0].as<T>();
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t in = 0; in < inner; ++in) {
            T sum = T(0);
            for (int64_t step = 0; step < length; ++step) {
                const int64_t at = (o * length + (reverse ? length - 1 - step : step)) * inner + in;
                if (exclusive) y[at] = sum;
                if constexpr (std::is_integral_v<T>)  // wraps instead of overflowing
                    sum = static_cast<T>(static_cast<uint64_t>(sum) + static_cast<uint64_t>(x[at]));
                else
                    sum += x[at];
                if (!exclusive) y[at] = sum;
            }
        }
}

void cum_sum_kernel(const KernelArgs& args) {
    dm::check_io(args, 1, 1);
    const Shape& shape = args.inputs[0].shape;
    const int64_t rank = static_cast<int64_t>(shape.size());
    const int64_t axis = normalize_axis(args, args.inputs.size() > 1 ? scalar_input(args, 1, "axis") : 0, rank, "axis");
    dm::check_shape(args, args.outputs[0].shape, shape, "output");
    const int64_t outer = product(shape, 0, static_cast<size_t>(axis)), length = shape[axis];
    const int64_t inner = product(shape, static_cast<size_t>(axis) + 1, shape.size());
    dispatch<kNumeric>(args.inputs[0].type, args.op_type, [&](auto tag) {
        cum_sum_typed<typename decltype(tag)::type>(args, outer, length, inner);
    });
}

}  // namespace

void register_index_kernels(KernelRegistry& r) {
    r.add("GatherND", {"opset5", "opset8"}, gather_nd_kernel);
    r.add("GatherElements", {"opset6"}, gather_elements_kernel);
    r.add("OneHot", {"opset1"}, one_hot_kernel);
    r.add("ReverseSequence", {"opset1"}, reverse_sequence_kernel);
    r.add("Eye", {"opset9"}, eye_kernel);
    r.add("Roll", {"opset7"}, roll_kernel);
    r.add("NonZero", {"opset3"}, non_zero_kernel);
    r.add("CumSum", {"opset3"}, cum_sum_kernel);
}

}  // namespace mosaic::reference
