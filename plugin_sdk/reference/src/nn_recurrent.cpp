// Reference kernels of LSTMSequence-5, GRUSequence-5 and RNNSequence-5.
//
// Batch items are independent, so each (direction, batch item) runs on its own: the state starts
// from the initial state, takes `length` steps (from 0 up, or from length-1 down for the reverse
// direction) and stops there, which makes Ho/Co the state after the last valid step; the steps
// past `length` leave zeros in Y. The arithmetic is done in double whatever the element type, so
// the kernel is an accuracy oracle rather than a model of a device's rounding.
#include "nn_kernels.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace mosaic::reference::nn {

namespace {

enum class CellKind { lstm, gru, rnn };

[[noreturn]] void fail(const KernelArgs& args, const std::string& message) {
    throw std::runtime_error(std::string(args.op_type) + "-" + std::string(args.version) + ": " + message);
}

// One of ONNX's recurrent activation functions with its alpha and beta bound.
struct Activation {
    enum Kind {
        sigmoid, tanh, relu, affine, leakyrelu, thresholdedrelu, scaledtanh, hardsigmoid, elu, softsign, softplus
    };
    Kind kind = sigmoid;
    double alpha = 0.0, beta = 0.0;

    double operator()(double x) const {
        switch (kind) {
            case sigmoid: return 1.0 / (1.0 + std::exp(-x));
            case tanh: return std::tanh(x);
            case relu: return std::max(x, 0.0);
            case affine: return alpha * x + beta;
            case leakyrelu: return x >= 0.0 ? x : alpha * x;
            case thresholdedrelu: return x > alpha ? x : 0.0;
            case scaledtanh: return alpha * std::tanh(beta * x);
            case hardsigmoid: return std::clamp(alpha * x + beta, 0.0, 1.0);
            case elu: return x >= 0.0 ? x : alpha * (std::exp(x) - 1.0);
            case softsign: return x / (1.0 + std::fabs(x));
            case softplus: return std::log1p(std::exp(x));
        }
        return x;
    }
};

struct ActivationInfo {
    const char* name;
    Activation::Kind kind;
    bool uses_alpha, uses_beta;
    double default_alpha, default_beta;  // those of the ONNX operator of the same name
};

constexpr ActivationInfo kActivations[] = {
    {"sigmoid", Activation::sigmoid, false, false, 0.0, 0.0},
    {"tanh", Activation::tanh, false, false, 0.0, 0.0},
    {"relu", Activation::relu, false, false, 0.0, 0.0},
    {"affine", Activation::affine, true, true, 1.0, 0.0},
    {"leakyrelu", Activation::leakyrelu, true, false, 0.01, 0.0},
    {"thresholdedrelu", Activation::thresholdedrelu, true, false, 1.0, 0.0},
    {"scaledtanh", Activation::scaledtanh, true, true, 1.0, 1.0},
    {"hardsigmoid", Activation::hardsigmoid, true, true, 0.2, 0.5},
    {"elu", Activation::elu, true, false, 1.0, 0.0},
    {"softsign", Activation::softsign, false, false, 0.0, 0.0},
    {"softplus", Activation::softplus, false, false, 0.0, 0.0},
};

std::vector<double> floats_attr(const KernelArgs& args, const char* name) {
    return args.attrs.has(name) ? args.attrs.get_floats(name) : std::vector<double>{};
}

// As in ONNX (and onnxruntime), alpha and beta values are consumed in order by the functions that
// take them, so "sigmoid,leakyrelu" with alpha "0.1" gives leakyrelu alpha 0.1.
std::vector<Activation> activations_attr(const KernelArgs& args, const char* fallback, size_t count) {
    const std::string raw = lower_attr(args, "activations", fallback);
    const std::vector<double> alphas = floats_attr(args, "activations_alpha");
    const std::vector<double> betas = floats_attr(args, "activations_beta");
    size_t next_alpha = 0, next_beta = 0;
    std::vector<Activation> out;
    for (size_t start = 0; start <= raw.size();) {
        const size_t comma = std::min(raw.find(',', start), raw.size());
        std::string name = raw.substr(start, comma - start);
        name.erase(std::remove_if(name.begin(), name.end(), [](unsigned char ch) { return std::isspace(ch); }),
                   name.end());
        start = comma + 1;
        const auto* info = std::find_if(std::begin(kActivations), std::end(kActivations),
                                        [&](const ActivationInfo& a) { return name == a.name; });
        if (info == std::end(kActivations)) fail(args, "unsupported activation '" + name + "' in '" + raw + "'");
        Activation a{info->kind, info->default_alpha, info->default_beta};
        if (info->uses_alpha && next_alpha < alphas.size()) a.alpha = alphas[next_alpha++];
        if (info->uses_beta && next_beta < betas.size()) a.beta = betas[next_beta++];
        out.push_back(a);
    }
    if (out.size() != count)
        fail(args, "attribute 'activations' = '" + raw + "' names " + std::to_string(out.size()) +
                       " functions, expected " + std::to_string(count));
    return out;
}

// What the cell needs besides the tensors; read once per call.
struct CellParams {
    CellKind kind = CellKind::rnn;
    int64_t hidden = 0, input = 0;
    double clip = 0.0;  // 0: none
    bool linear_before_reset = false;
    std::vector<Activation> act;  // f, g, h
};

template <typename T>
struct Weights {
    const T* w;  // [gates*hidden, input] of one direction
    const T* r;  // [gates*hidden, hidden]
    const T* b;  // [gates*hidden] (GRU with linear_before_reset: [4*hidden])
};

// out[j] += m[row0 + j, :] . v for j in [0, rows)
template <typename T>
void add_matvec(const T* m, int64_t row0, int64_t rows, int64_t cols, const double* v, double* out) {
    for (int64_t j = 0; j < rows; ++j) {
        const T* row = m + (row0 + j) * cols;
        double sum = 0.0;
        for (int64_t k = 0; k < cols; ++k) sum += static_cast<double>(row[k]) * v[k];
        out[j] += sum;
    }
}

// Clipping bounds the pre-activation of every gate; 0 turns it off.
double activate(const CellParams& p, const Activation& a, double x) {
    return a(p.clip > 0.0 ? std::clamp(x, -p.clip, p.clip) : x);
}

// Gate pre-activations W x + R h + B over `gates` consecutive gate blocks starting at gate 0.
template <typename T>
std::vector<double> gate_inputs(const CellParams& p, const Weights<T>& wt, int64_t gates, const double* x,
                                const double* h) {
    std::vector<double> g(static_cast<size_t>(gates * p.hidden));
    for (size_t j = 0; j < g.size(); ++j) g[j] = static_cast<double>(wt.b[j]);
    add_matvec(wt.w, 0, gates * p.hidden, p.input, x, g.data());
    add_matvec(wt.r, 0, gates * p.hidden, p.hidden, h, g.data());
    return g;
}

// Gate order f, i, c, o: c = f*c + i*g(c~), h = o*h(c).
template <typename T>
void lstm_step(const CellParams& p, const Weights<T>& wt, const double* x, std::vector<double>& h,
               std::vector<double>& c) {
    const std::vector<double> g = gate_inputs(p, wt, 4, x, h.data());
    const auto n = static_cast<size_t>(p.hidden);
    for (size_t j = 0; j < n; ++j) {
        const double f = activate(p, p.act[0], g[j]);
        const double i = activate(p, p.act[0], g[n + j]);
        const double candidate = activate(p, p.act[1], g[2 * n + j]);
        const double o = activate(p, p.act[0], g[3 * n + j]);
        c[j] = f * c[j] + i * candidate;
        h[j] = o * p.act[2](c[j]);
    }
}

// Gate order z, r, h. Without linear_before_reset the reset gate scales the state before R_h;
// with it, it scales R_h h + Rb_h, which is why that bias is kept apart in B's fourth block.
template <typename T>
void gru_step(const CellParams& p, const Weights<T>& wt, const double* x, std::vector<double>& h) {
    const auto n = static_cast<size_t>(p.hidden);
    std::vector<double> zr = gate_inputs(p, wt, 2, x, h.data());
    std::vector<double> z(n), r(n);
    for (size_t j = 0; j < n; ++j) {
        z[j] = activate(p, p.act[0], zr[j]);
        r[j] = activate(p, p.act[0], zr[n + j]);
    }
    std::vector<double> candidate(n, 0.0);
    for (size_t j = 0; j < n; ++j) candidate[j] = static_cast<double>(wt.b[2 * n + j]);
    add_matvec(wt.w, 2 * p.hidden, p.hidden, p.input, x, candidate.data());
    if (p.linear_before_reset) {
        std::vector<double> rh(n, 0.0);
        for (size_t j = 0; j < n; ++j) rh[j] = static_cast<double>(wt.b[3 * n + j]);
        add_matvec(wt.r, 2 * p.hidden, p.hidden, p.hidden, h.data(), rh.data());
        for (size_t j = 0; j < n; ++j) candidate[j] += r[j] * rh[j];
    } else {
        std::vector<double> reset_h(n);
        for (size_t j = 0; j < n; ++j) reset_h[j] = r[j] * h[j];
        add_matvec(wt.r, 2 * p.hidden, p.hidden, p.hidden, reset_h.data(), candidate.data());
    }
    for (size_t j = 0; j < n; ++j) h[j] = (1.0 - z[j]) * activate(p, p.act[1], candidate[j]) + z[j] * h[j];
}

template <typename T>
void rnn_step(const CellParams& p, const Weights<T>& wt, const double* x, std::vector<double>& h) {
    const std::vector<double> g = gate_inputs(p, wt, 1, x, h.data());
    for (size_t j = 0; j < h.size(); ++j) h[j] = activate(p, p.act[0], g[j]);
}

// Input positions; LSTM's cell state shifts the later inputs by one.
struct Ports {
    size_t x = 0, h = 1, c = 2, lengths, w, r, b;
    explicit Ports(bool has_cell)
        : lengths(has_cell ? 3 : 2), w(lengths + 1), r(lengths + 2), b(lengths + 3) {}
};

std::vector<int64_t> sequence_lengths(const KernelArgs& args, const ConstTensorView& t, int64_t seq_len) {
    std::vector<int64_t> lengths = read_ints(t);
    for (size_t i = 0; i < lengths.size(); ++i)
        if (lengths[i] < 0 || lengths[i] > seq_len)
            fail(args, "sequence_lengths[" + std::to_string(i) + "] = " + std::to_string(lengths[i]) +
                           " is outside [0, " + std::to_string(seq_len) + "], the seq_length of X");
    return lengths;
}

template <typename T>
std::vector<double> load(const T* src, int64_t n) {
    return std::vector<double>(src, src + n);
}

template <typename T>
void store(const std::vector<double>& src, T* dst) {
    for (size_t j = 0; j < src.size(); ++j) dst[j] = static_cast<T>(src[j]);
}

template <typename T>
void run_sequence(const KernelArgs& args, const CellParams& p, bool reverse_only) {
    const Ports port(p.kind == CellKind::lstm);
    const Shape& xs = args.inputs[port.x].shape;
    const int64_t batch = xs[0], seq_len = xs[1], hidden = p.hidden;
    const int64_t nd = args.inputs[port.w].shape[0];
    const int64_t gate_rows = args.inputs[port.w].shape[1], bias_rows = args.inputs[port.b].shape[1];
    const std::vector<int64_t> lengths = sequence_lengths(args, args.inputs[port.lengths], seq_len);

    const T* x = args.inputs[port.x].as<T>();
    T* y = args.outputs[0].as<T>();
    std::fill(y, y + shape_size(args.outputs[0].shape), T{0});
    for (int64_t d = 0; d < nd; ++d) {
        const bool reverse = reverse_only || d == 1;
        const Weights<T> wt{args.inputs[port.w].as<T>() + d * gate_rows * p.input,
                            args.inputs[port.r].as<T>() + d * gate_rows * hidden,
                            args.inputs[port.b].as<T>() + d * bias_rows};
        for (int64_t b = 0; b < batch; ++b) {
            const int64_t state = (b * nd + d) * hidden;
            std::vector<double> h = load(args.inputs[port.h].as<T>() + state, hidden);
            std::vector<double> c = p.kind == CellKind::lstm ? load(args.inputs[port.c].as<T>() + state, hidden)
                                                             : std::vector<double>();
            const int64_t len = lengths[static_cast<size_t>(b)];
            for (int64_t step = 0; step < len; ++step) {
                const int64_t t = reverse ? len - 1 - step : step;
                const std::vector<double> xt = load(x + (b * seq_len + t) * p.input, p.input);
                if (p.kind == CellKind::lstm) lstm_step(p, wt, xt.data(), h, c);
                else if (p.kind == CellKind::gru) gru_step(p, wt, xt.data(), h);
                else rnn_step(p, wt, xt.data(), h);
                store(h, y + ((b * nd + d) * seq_len + t) * hidden);
            }
            store(h, args.outputs[1].as<T>() + state);
            if (p.kind == CellKind::lstm) store(c, args.outputs[2].as<T>() + state);
        }
    }
}

void sequence_kernel(const KernelArgs& args, CellKind kind) {
    const Ports port(kind == CellKind::lstm);
    const size_t outputs = kind == CellKind::lstm ? 3 : 2;
    if (args.inputs.size() != port.b + 1 || args.outputs.size() != outputs)
        fail(args, "expects " + std::to_string(port.b + 1) + " inputs and " + std::to_string(outputs) +
                       " outputs, got " + std::to_string(args.inputs.size()) + " and " +
                       std::to_string(args.outputs.size()));
    CellParams p;
    p.kind = kind;
    p.hidden = args.inputs[port.r].shape.at(2);
    p.input = args.inputs[port.x].shape.at(2);
    p.clip = args.attrs.get_float("clip", 0.0);
    p.linear_before_reset = kind == CellKind::gru && args.attrs.get_bool("linear_before_reset", false);
    p.act = kind == CellKind::lstm  ? activations_attr(args, "sigmoid,tanh,tanh", 3)
            : kind == CellKind::gru ? activations_attr(args, "sigmoid,tanh", 2)
                                    : activations_attr(args, "tanh", 1);
    const std::string direction = lower_attr(args, "direction", "forward");
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
        fail(args, "unsupported direction '" + direction + "'");
    dispatch_floating(args, args.inputs[port.x].type,
                      [&](auto tag) { run_sequence<decltype(tag)>(args, p, direction == "reverse"); });
}

void lstm_sequence_kernel(const KernelArgs& args) { sequence_kernel(args, CellKind::lstm); }
void gru_sequence_kernel(const KernelArgs& args) { sequence_kernel(args, CellKind::gru); }
void rnn_sequence_kernel(const KernelArgs& args) { sequence_kernel(args, CellKind::rnn); }

}  // namespace

void register_recurrent_kernels(KernelRegistry& r) {
    r.add("LSTMSequence", {"opset5"}, lstm_sequence_kernel);
    r.add("GRUSequence", {"opset5"}, gru_sequence_kernel);
    r.add("RNNSequence", {"opset5"}, rnn_sequence_kernel);
}

}  // namespace mosaic::reference::nn
