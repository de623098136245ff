// Schemas of the recurrent sequence ops of opset5: LSTMSequence, GRUSequence and RNNSequence.
// All three share one layout (batch first, a num_directions axis on every state and weight) and
// differ in the number of gates, the presence of a cell state and GRU's extra bias. The dims that
// several inputs share (batch, num_directions, hidden_size, input_size) are checked against each
// other here so a malformed model fails at load with the input that disagrees, not in a kernel.
#include "ops/nn_ops.hpp"

#include <algorithm>
#include <cctype>

namespace mosaic::ops {

namespace {

struct RecurrentOp {
    const char* type;
    int64_t gates;                    // rows of W and R per direction, in units of hidden_size
    bool has_cell;                    // LSTM's initial_cell_state input and Co output
    bool has_linear_before_reset;     // GRU's attribute, which adds a fourth bias row block
    size_t activation_count;          // f, g, h as far as the op uses them
    const char* default_activations;
};

constexpr RecurrentOp kLstm{"LSTMSequence", 4, true, false, 3, "sigmoid,tanh,tanh"};
constexpr RecurrentOp kGru{"GRUSequence", 3, false, true, 2, "sigmoid,tanh"};
constexpr RecurrentOp kRnn{"RNNSequence", 1, false, false, 1, "tanh"};

// Input positions; the cell state shifts every later input by one.
struct Inputs {
    size_t x = 0, h = 1, c = 2, lengths, w, r, b;
    explicit Inputs(bool has_cell)
        : lengths(has_cell ? 3 : 2), w(lengths + 1), r(lengths + 2), b(lengths + 3) {}
};

// The first static dim among those that must agree, or dynamic when none is known yet.
int64_t known_dim(std::initializer_list<int64_t> dims) {
    for (int64_t d : dims)
        if (d >= 0) return d;
    return kDynamicDim;
}

int64_t dim_or_dynamic(const Shape& s, size_t axis) { return axis < s.size() ? s[axis] : kDynamicDim; }

// A dynamic dim on either side matches; the message shows the whole expected shape and its layout.
void check_dims(const InferContext& ctx, size_t input, const char* what, const Shape& expected,
                const std::string& layout) {
    const Shape& actual = ctx.input_shape(input);
    bool ok = actual.size() == expected.size();
    for (size_t i = 0; ok && i < actual.size(); ++i)
        ok = actual[i] < 0 || expected[i] < 0 || actual[i] == expected[i];
    ctx.check(ok, std::string(what) + " (input " + std::to_string(input) + ") has shape " + to_string(actual) +
                      ", expected " + to_string(expected) + " = " + layout);
}

std::vector<std::string> split_names(const std::string& raw) {
    std::vector<std::string> names;
    for (size_t start = 0; start <= raw.size();) {
        const size_t comma = std::min(raw.find(',', start), raw.size());
        std::string name = raw.substr(start, comma - start);
        name.erase(0, name.find_first_not_of(" \t"));
        name.erase(name.find_last_not_of(" \t") + 1);
        for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        names.push_back(name);
        start = comma + 1;
    }
    return names;
}

// The activations the reference kernel implements: ONNX's list, of which OpenVINO uses the first three.
void check_activations(const InferContext& ctx, const RecurrentOp& op) {
    static const char* const kKnown[] = {"sigmoid",   "tanh",        "relu", "affine",   "leakyrelu", "thresholdedrelu",
                                         "scaledtanh", "hardsigmoid", "elu",  "softsign", "softplus"};
    const std::string raw = ctx.attrs().get_string("activations", op.default_activations);
    const std::vector<std::string> names = split_names(raw);
    ctx.check(names.size() == op.activation_count,
              "attribute 'activations' = '" + raw + "' names " + std::to_string(names.size()) +
                  " functions, expected " + std::to_string(op.activation_count));
    for (const std::string& name : names) {
        bool known = false;
        for (const char* k : kKnown) known = known || name == k;
        ctx.check(known, "attribute 'activations' = '" + raw + "' names unsupported function '" + name + "'");
    }
    // Parsed here for their errors only; the values matter to the kernel.
    if (ctx.attrs().has("activations_alpha")) ctx.attrs().get_floats("activations_alpha");
    if (ctx.attrs().has("activations_beta")) ctx.attrs().get_floats("activations_beta");
}

// Lengths known at build time (usually a Constant) are checked here rather than when the model runs.
void check_known_lengths(const InferContext& ctx, size_t input, int64_t seq_len) {
    const KnownValue* known = ctx.input_value(input);
    if (!known || seq_len < 0) return;
    const std::vector<int64_t> lengths = known->as_ints();
    for (size_t i = 0; i < lengths.size(); ++i)
        ctx.check(lengths[i] >= 0 && lengths[i] <= seq_len,
                  "sequence_lengths[" + std::to_string(i) + "] = " + std::to_string(lengths[i]) + " is outside [0, " +
                      std::to_string(seq_len) + "], the seq_length of X");
}

int64_t num_directions(const InferContext& ctx) {
    return nn::choice_attr(ctx, "direction", {"forward", "reverse", "bidirectional"}) == "bidirectional" ? 2 : 1;
}

std::vector<PortInfo> infer_sequence(const InferContext& ctx, const RecurrentOp& op) {
    const Inputs in(op.has_cell);
    nn::check_floating(ctx, in.x, "X");
    nn::check_rank(ctx, in.x, "X", 3, 3);
    nn::check_integer(ctx, in.lengths, "sequence_lengths");
    for (size_t i : {in.h, in.w, in.r, in.b}) nn::check_same_type(ctx, in.x, i);
    if (op.has_cell) nn::check_same_type(ctx, in.x, in.c);

    const int64_t hidden = ctx.attrs().get_int("hidden_size");
    ctx.check(hidden > 0, "attribute 'hidden_size' must be positive, got " + std::to_string(hidden));
    const double clip = ctx.attrs().get_float("clip", 0.0);
    ctx.check(clip >= 0.0, "attribute 'clip' must be 0 (no clipping) or positive, got " + std::to_string(clip));
    const bool linear_before_reset = op.has_linear_before_reset && ctx.attrs().get_bool("linear_before_reset", false);
    check_activations(ctx, op);
    const int64_t nd = num_directions(ctx);

    const Shape& x = ctx.input_shape(in.x);
    const Shape& h = ctx.input_shape(in.h);
    const Shape& lengths = ctx.input_shape(in.lengths);
    const int64_t batch = known_dim({x[0], dim_or_dynamic(h, 0), dim_or_dynamic(lengths, 0)});
    const int64_t input_size = x[2];
    const int64_t bias_rows = (op.gates + (linear_before_reset ? 1 : 0)) * hidden;
    const std::string gates = op.gates == 1 ? "hidden_size" : std::to_string(op.gates) + "*hidden_size";

    check_dims(ctx, in.h, "initial_hidden_state", {batch, nd, hidden}, "[batch_size, num_directions, hidden_size]");
    if (op.has_cell)
        check_dims(ctx, in.c, "initial_cell_state", {batch, nd, hidden}, "[batch_size, num_directions, hidden_size]");
    check_dims(ctx, in.lengths, "sequence_lengths", {batch}, "[batch_size]");
    check_known_lengths(ctx, in.lengths, x[1]);
    check_dims(ctx, in.w, "W", {nd, op.gates * hidden, input_size},
               "[num_directions, " + gates + ", input_size]");
    check_dims(ctx, in.r, "R", {nd, op.gates * hidden, hidden},
               "[num_directions, " + gates + ", hidden_size]");
    check_dims(ctx, in.b, "B", {nd, bias_rows},
               linear_before_reset ? "[num_directions, 4*hidden_size] (linear_before_reset)"
                                   : "[num_directions, " + gates + "]");

    const ElementType t = ctx.input_type(in.x);
    std::vector<PortInfo> out{{t, {batch, nd, x[1], hidden}}, {t, {batch, nd, hidden}}};
    if (op.has_cell) out.push_back({t, {batch, nd, hidden}});
    return out;
}

}  // namespace

void register_recurrent_ops(OpRegistry& r) {
    r.add({kLstm.type, {"opset5"}, 7, 7, [](const InferContext& ctx) { return infer_sequence(ctx, kLstm); }});
    r.add({kGru.type, {"opset5"}, 6, 6, [](const InferContext& ctx) { return infer_sequence(ctx, kGru); }});
    r.add({kRnn.type, {"opset5"}, 6, 6, [](const InferContext& ctx) { return infer_sequence(ctx, kRnn); }});
}

}  // namespace mosaic::ops
