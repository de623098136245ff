// Reference kernels of ShapeOf (opset1, opset3) and Range (opset1, opset4).
#include "data_movement_kernels.hpp"
#include "data_movement_util.hpp"

#include <cmath>

namespace mosaic::reference {

namespace {

// Writes v, converted to `type`, as element i of `data`.
template <typename V>
void store(const KernelArgs& args, ElementType type, void* data, int64_t i, V v) {
    switch (type) {
        case ElementType::f32: static_cast<float*>(data)[i] = static_cast<float>(v); break;
        case ElementType::f64: static_cast<double*>(data)[i] = static_cast<double>(v); break;
        case ElementType::i8: static_cast<int8_t*>(data)[i] = static_cast<int8_t>(v); break;
        case ElementType::u8: static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(v); break;
        case ElementType::i16: static_cast<int16_t*>(data)[i] = static_cast<int16_t>(v); break;
        case ElementType::u16: static_cast<uint16_t*>(data)[i] = static_cast<uint16_t>(v); break;
        case ElementType::i32: static_cast<int32_t*>(data)[i] = static_cast<int32_t>(v); break;
        case ElementType::u32: static_cast<uint32_t*>(data)[i] = static_cast<uint32_t>(v); break;
        case ElementType::i64: static_cast<int64_t*>(data)[i] = static_cast<int64_t>(v); break;
        case ElementType::u64: static_cast<uint64_t*>(data)[i] = static_cast<uint64_t>(v); break;
        default: dm::fail(args, std::string("unsupported output element type ") + to_string(type));
    }
}

// ShapeOf reads only its input's shape: when the framework folds it, the data may be absent.
void shape_of_kernel(const KernelArgs& args) {
    dm::check(args, args.inputs.size() == 1 && args.outputs.size() == 1, "expected one input and one output");
    const Shape& shape = args.inputs[0].shape;
    const TensorView& out = args.outputs[0];
    dm::check(args, out.type == ElementType::i32 || out.type == ElementType::i64, "output must be i32 or i64");
    dm::check_shape(args, out.shape, Shape{static_cast<int64_t>(shape.size())}, "output");
    for (size_t d = 0; d < shape.size(); ++d) store(args, out.type, out.data, static_cast<int64_t>(d), shape[d]);
}

// A Range bound as a double, whatever its numeric type.
double scalar_value(const KernelArgs& args, const ConstTensorView& t, const char* what) {
    dm::check(args, t.size() == 1, std::string(what) + " must be a scalar");
    if (t.type == ElementType::f32) return *t.as<float>();
    if (t.type == ElementType::f64) return *t.as<double>();
    return static_cast<double>(dm::read_ints(args, t, what)[0]);
}

// A Range bound for an integer output: integers exactly, floats truncated toward zero.
int64_t scalar_int(const KernelArgs& args, const ConstTensorView& t, const char* what) {
    if (is_floating(t.type)) return static_cast<int64_t>(std::trunc(scalar_value(args, t, what)));
    dm::check(args, t.size() == 1, std::string(what) + " must be a scalar");
    return dm::read_ints(args, t, what)[0];
}

// out[i] = start + i * step; shape inference has already sized the output from stop.
void range_kernel(const KernelArgs& args) {
    dm::check(args, args.inputs.size() == 3 && args.outputs.size() == 1, "expected three inputs and one output");
    const TensorView& out = args.outputs[0];
    dm::check(args, out.shape.size() == 1, "output must be 1D");
    if (is_integral(out.type)) {
        const int64_t start = scalar_int(args, args.inputs[0], "start");
        const int64_t step = scalar_int(args, args.inputs[2], "step");
        for (int64_t i = 0; i < out.size(); ++i) store(args, out.type, out.data, i, start + i * step);
    } else {
        const double start = scalar_value(args, args.inputs[0], "start");
        const double step = scalar_value(args, args.inputs[2], "step");
        for (int64_t i = 0; i < out.size(); ++i) store(args, out.type, out.data, i, start + static_cast<double>(i) * step);
    }
}

}  // namespace

void register_shape_kernels(KernelRegistry& r) {
    r.add("ShapeOf", {"opset1", "opset3"}, shape_of_kernel);
    r.add("Range", {"opset1", "opset4"}, range_kernel);
}

}  // namespace mosaic::reference
