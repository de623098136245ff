// Activation kernels. Relu, Clamp and PRelu take any numeric type; the smooth activations (Elu,
// Gelu, Swish, HSwish, HSigmoid, Mish, SoftPlus, SoftSign, Selu, HardSigmoid) are defined by
// OpenVINO for floating-point types only and are evaluated in double.
#include "elementwise_kernels.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <type_traits>

namespace mosaic::reference {

namespace {

void relu_kernel(const KernelArgs& args) {
    require_io(args, 1, 1, 1);
    dispatch<kNumeric>(args.inputs[0].type, args.op_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        unary_map<T, T>(args, [](T x) -> T { return x > T{0} ? x : T{0}; });
    });
}

// For integer tensors the bounds are rounded inwards (min up, max down), as the Clamp spec says.
void clamp_kernel(const KernelArgs& args) {
    require_io(args, 1, 1, 1);
    const double min = args.attrs.get_float("min"), max = args.attrs.get_float("max");
    dispatch<kNumeric>(args.inputs[0].type, args.op_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T lo, hi;
        if constexpr (std::is_integral_v<T>) {
            lo = saturate_to_integer<T>(std::ceil(min));
            hi = saturate_to_integer<T>(std::floor(max));
        } else {
            lo = static_cast<T>(min);
            hi = static_cast<T>(max);
        }
        unary_map<T, T>(args, [lo, hi](T x) -> T { return std::min(std::max(x, lo), hi); });
    });
}

// The value of a one-element parameter input (Swish's beta, Selu's alpha...).
template <typename T>
double scalar_input(const KernelArgs& args, size_t i, const char* what) {
    const ConstTensorView& v = args.inputs.at(i);
    if (v.type != args.inputs[0].type || v.size() != 1)
        throw std::runtime_error(std::string(args.op_type) + ": input " + std::to_string(i) + " (" + what +
                                 ") must be one element of the data type, got " + to_string(v.type) + " " +
                                 to_string(v.shape));
    return static_cast<double>(v.as<T>()[0]);
}

// Applies fn(x) in double to a floating-point tensor; fn is built once per call from the
// parameters, which may depend on T (they are read from inputs of the data type).
template <typename MakeFn>
void float_activation(const KernelArgs& args, MakeFn&& make_fn) {
    dispatch<kFloat>(args.inputs.at(0).type, args.op_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        auto fn = make_fn(tag);
        unary_map<T, T>(args, [&fn](T x) -> T { return static_cast<T>(fn(static_cast<double>(x))); });
    });
}

double softplus(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
double hsigmoid(double x) { return std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0; }

void elu_kernel(const KernelArgs& args) {
    require_io(args, 1, 1, 1);
    const double alpha = args.attrs.get_float("alpha");
    float_activation(args, [alpha](auto) {
        return [alpha](double x) { return x > 0 ? x : alpha * (std::exp(x) - 1.0); };
    });
}

void gelu_kernel(const KernelArgs& args) {
    require_io(args, 1, 1, 1);
    bool use_tanh = false;
    if (args.version != "opset2") {
        std::string mode = args.attrs.get_string("approximation_mode", "erf");
        for (char& c : mode) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (mode != "erf" && mode != "tanh")
            throw std::runtime_error("Gelu: approximation_mode '" + mode + "' is not erf or tanh");
        use_tanh = mode == "tanh";
    }
    float_activation(args, [use_tanh](auto) {
        return [use_tanh](double x) {
            if (use_tanh) {
                const double k = std::sqrt(2.0 / 3.14159265358979323846);
                return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
            }
            return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
        };
    });
}

void swish_kernel(const KernelArgs& args) {
    require_io(args, 1, 2, 1);
    float_activation(args, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const double beta = args.inputs.size() > 1 ? scalar_input<T>(args, 1, "beta") : 1.0;
        return [beta](double x) { return x / (1.0 + std::exp(-beta * x)); };
    });
}

void selu_kernel(const KernelArgs& args) {
    require_io(args, 3, 3, 1);
    float_activation(args, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const double alpha = scalar_input<T>(args, 1, "alpha"), lambda = scalar_input<T>(args, 2, "lambda");
        return [alpha, lambda](double x) { return lambda * (x > 0 ? x : alpha * (std::exp(x) - 1.0)); };
    });
}

void hard_sigmoid_kernel(const KernelArgs& args) {
    require_io(args, 3, 3, 1);
    float_activation(args, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const double alpha = scalar_input<T>(args, 1, "alpha"), beta = scalar_input<T>(args, 2, "beta");
        return [alpha, beta](double x) { return std::max(0.0, std::min(1.0, alpha * x + beta)); };
    });
}

template <double (*F)(double)>
void simple_float_kernel(const KernelArgs& args) {
    require_io(args, 1, 1, 1);
    float_activation(args, [](auto) { return F; });
}

double hswish(double x) { return x * hsigmoid(x); }
double mish(double x) { return x * std::tanh(softplus(x)); }
double softsign(double x) { return x / (1.0 + std::fabs(x)); }

// The slope broadcasts per channel (data dim 1) when it is 1D with the channel count; otherwise
// it broadcasts numpy-style, as the PRelu spec says.
void prelu_kernel(const KernelArgs& args) {
    require_io(args, 2, 2, 1);
    const ConstTensorView& data = args.inputs[0];
    const ConstTensorView& slope = args.inputs[1];
    Shape slope_shape = slope.shape;
    if (slope.shape.size() == 1 && data.shape.size() >= 2 && slope.shape[0] == data.shape[1]) {
        slope_shape = Shape(data.shape.size() - 1, 1);
        slope_shape[0] = slope.shape[0];
    }
    if (slope.type != data.type) unsupported_type(args.op_type, slope.type);
    const BroadcastIndex slope_index(slope_shape, data.shape);
    dispatch<kNumeric>(data.type, args.op_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* x = data.as<T>();
        const T* s = slope.as<T>();
        T* out = args.outputs[0].as<T>();
        for (int64_t i = 0; i < data.size(); ++i)
            out[i] = x[i] < T{0} ? static_cast<T>(x[i] * s[slope_index(i)]) : x[i];
    });
}

}  // namespace

void register_activation_kernels(KernelRegistry& r) {
    r.add("Relu", {"opset1"}, relu_kernel);
    r.add("Clamp", {"opset1"}, clamp_kernel);
    r.add("Elu", {"opset1"}, elu_kernel);
    r.add("Gelu", {"opset2", "opset7"}, gelu_kernel);
    r.add("Swish", {"opset4"}, swish_kernel);
    r.add("HSwish", {"opset4"}, simple_float_kernel<hswish>);
    r.add("HSigmoid", {"opset5"}, simple_float_kernel<hsigmoid>);
    r.add("Mish", {"opset4"}, simple_float_kernel<mish>);
    r.add("SoftPlus", {"opset4"}, simple_float_kernel<softplus>);
    r.add("SoftSign", {"opset9"}, simple_float_kernel<softsign>);
    r.add("PRelu", {"opset1"}, prelu_kernel);
    r.add("Selu", {"opset1"}, selu_kernel);
    r.add("HardSigmoid", {"opset1"}, hard_sigmoid_kernel);
}

}  // namespace mosaic::reference
