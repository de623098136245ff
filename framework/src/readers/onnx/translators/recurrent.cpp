// Translators of ONNX LSTM, GRU and RNN (opsets 7 to 14) into LSTMSequence-5, GRUSequence-5 and
// RNNSequence-5. The math is the same; what differs is layout: ONNX is time-major unless layout=1,
// puts num_directions before batch in states and Y, orders LSTM gates i,o,f,c where OpenVINO has
// f,i,c,o, and keeps the input and recurrence biases apart where OpenVINO sums them (all but
// GRU's recurrence bias of the h gate when linear_before_reset is set, which cannot be folded).
#include "readers/onnx/onnx_node_context.hpp"

#include <algorithm>
#include <cctype>

namespace mosaic::onnx_import {

namespace {

struct RecurrentKind {
    const char* ov_type;
    int64_t gates;
    std::vector<int> ov_gate_order;  // OpenVINO gate k is ONNX gate ov_gate_order[k]
    size_t activation_count;
    size_t h_input, c_input, p_input;  // ONNX input positions (0: none)
};

const RecurrentKind kLstm{"LSTMSequence", 4, {2, 0, 3, 1}, 3, 5, 6, 7};
const RecurrentKind kGru{"GRUSequence", 3, {0, 1, 2}, 2, 5, 0, 0};
const RecurrentKind kRnn{"RNNSequence", 1, {0}, 1, 5, 0, 0};
constexpr size_t kX = 0, kW = 1, kR = 2, kB = 3, kLengths = 4;

// Whether an ONNX activation takes an alpha / a beta, so the per-direction halves of the
// activation_alpha / activation_beta lists can be told apart.
bool uses_alpha(const std::string& f) {
    return f == "affine" || f == "leakyrelu" || f == "thresholdedrelu" || f == "scaledtanh" || f == "hardsigmoid" ||
           f == "elu";
}
bool uses_beta(const std::string& f) { return f == "affine" || f == "scaledtanh" || f == "hardsigmoid"; }

std::string lower(std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
}

std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
    return out;
}

std::vector<std::string> string_list_attr(const NodeContext& ctx, const std::string& name) {
    std::vector<std::string> out;
    if (const auto* a = ctx.attr(name))
        for (const auto& s : a->strings()) out.push_back(lower(s));
    return out;
}

// Splits `values` into the part the first `count` functions consume and the rest.
std::vector<double> take(std::vector<double>& values, size_t count) {
    count = std::min(count, values.size());
    std::vector<double> head(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(count));
    values.erase(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(count));
    return head;
}

// OpenVINO's sequence ops take one set of activations for both directions, while ONNX may give a
// bidirectional node a set per direction; equal sets collapse to one, different ones cannot.
void set_activations(NodeContext& ctx, const RecurrentKind& kind, bool bidirectional, Attributes& attrs) {
    std::vector<std::string> names = string_list_attr(ctx, "activations");
    std::vector<double> alphas = ctx.attr_floats("activation_alpha");
    std::vector<double> betas = ctx.attr_floats("activation_beta");
    if (names.empty()) return;
    if (names.size() != kind.activation_count &&
        !(bidirectional && names.size() == 2 * kind.activation_count))
        ctx.fail("attribute 'activations' has " + std::to_string(names.size()) + " functions, expected " +
                 std::to_string(kind.activation_count) + (bidirectional ? " or twice that" : ""));
    const auto split_at = names.begin() + static_cast<std::ptrdiff_t>(kind.activation_count);
    const std::vector<std::string> forward(names.begin(), split_at);
    const size_t n_alpha = static_cast<size_t>(std::count_if(forward.begin(), forward.end(), uses_alpha));
    const size_t n_beta = static_cast<size_t>(std::count_if(forward.begin(), forward.end(), uses_beta));
    std::vector<double> forward_alphas = take(alphas, n_alpha), forward_betas = take(betas, n_beta);
    if (names.size() > forward.size()) {
        const std::vector<std::string> reverse(split_at, names.end());
        const bool same = reverse == forward && (alphas.empty() || alphas == forward_alphas) &&
                          (betas.empty() || betas == forward_betas);
        if (!same)
            ctx.unsupported("different activations per direction (" + join(names) +
                            ") are not supported: OpenVINO's sequence ops take one set for both");
    }
    attrs.set("activations", join(forward));
    attrs.set("activations_alpha", forward_alphas);
    attrs.set("activations_beta", forward_betas);
}

std::vector<Output> split(NodeContext& ctx, Output x, int64_t axis, int64_t parts) {
    Output first = ctx.op("Split", {x, ctx.scalar_i64(axis)}, {{"num_splits", std::to_string(parts)}});
    std::vector<Output> out;
    for (int64_t i = 0; i < parts; ++i) out.push_back(Output{first.node, static_cast<size_t>(i)});
    return out;
}

Output concat(NodeContext& ctx, std::vector<Output> parts, int64_t axis) {
    return parts.size() == 1 ? parts[0] : ctx.op("Concat", std::move(parts), {{"axis", std::to_string(axis)}});
}

Output transpose(NodeContext& ctx, Output x, const std::vector<int64_t>& order) {
    return ctx.op("Transpose", {x, ctx.const_i64(order)});
}

// W and R [nd, gates*hidden, *] with their gate blocks in OpenVINO's order.
Output reorder_gates(NodeContext& ctx, const RecurrentKind& kind, Output w) {
    if (std::is_sorted(kind.ov_gate_order.begin(), kind.ov_gate_order.end())) return w;
    const std::vector<Output> gates = split(ctx, w, 1, kind.gates);
    std::vector<Output> ordered;
    for (int g : kind.ov_gate_order) ordered.push_back(gates[static_cast<size_t>(g)]);
    return concat(ctx, ordered, 1);
}

// OpenVINO's B from ONNX's [nd, 2*gates*hidden] = Wb then Rb, or zeros when there is none.
Output bias(NodeContext& ctx, const RecurrentKind& kind, bool linear_before_reset, int64_t nd, int64_t hidden,
            ElementType type) {
    const int64_t rows = (kind.gates + (linear_before_reset ? 1 : 0)) * hidden;  // hidden_size() bounds it
    if (!ctx.has_input(kB))
        return ctx.const_of(type, std::vector<double>(static_cast<size_t>(nd * rows), 0.0), {nd, rows});
    const std::vector<Output> wb_rb = split(ctx, ctx.input(kB), 1, 2);
    if (!linear_before_reset) return reorder_gates(ctx, kind, ctx.op("Add", {wb_rb[0], wb_rb[1]}));
    const std::vector<Output> wb = split(ctx, wb_rb[0], 1, 3), rb = split(ctx, wb_rb[1], 1, 3);
    return concat(ctx, {ctx.op("Add", {wb[0], rb[0]}), ctx.op("Add", {wb[1], rb[1]}), wb[2], rb[2]}, 1);
}

// [batch, nd, hidden] zeros, batch read from X at run time so a dynamic batch works too.
Output zero_state(NodeContext& ctx, Output x, int64_t nd, int64_t hidden) {
    Output batch = ctx.op("Gather", {ctx.shape_of(x), ctx.const_i64({0}), ctx.scalar_i64(0)}, {{"batch_dims", "0"}});
    Output shape = concat(ctx, {batch, ctx.const_i64({nd, hidden})}, 0);
    return ctx.op("Broadcast", {ctx.scalar_of(ctx.type(x), 0), shape}, {{"mode", "numpy"}});
}

// ONNX states are [nd, batch, hidden] unless layout=1, which matches OpenVINO's [batch, nd, hidden].
Output state(NodeContext& ctx, size_t input, bool batch_major, Output x, int64_t nd, int64_t hidden) {
    if (input == 0 || !ctx.has_input(input)) return zero_state(ctx, x, nd, hidden);
    return batch_major ? ctx.input(input) : transpose(ctx, ctx.input(input), {1, 0, 2});
}

// Absent lengths mean every batch item runs the whole sequence.
Output lengths(NodeContext& ctx, Output x) {
    if (ctx.has_input(kLengths)) return ctx.input(kLengths);
    Output shape = ctx.shape_of(x);
    Output seq = ctx.op("Gather", {shape, ctx.const_i64({1}), ctx.scalar_i64(0)}, {{"batch_dims", "0"}});
    Output batch = ctx.op("Gather", {shape, ctx.const_i64({0}), ctx.scalar_i64(0)}, {{"batch_dims", "0"}});
    return ctx.op("Broadcast", {seq, batch}, {{"mode", "numpy"}});
}

// Peepholes have no place in OpenVINO's LSTMSequence-5; an all-zero P is the same as none.
void check_peepholes(NodeContext& ctx, const RecurrentKind& kind) {
    if (kind.p_input == 0 || !ctx.has_input(kind.p_input)) return;
    const ops::KnownValue* p = ctx.value(ctx.input(kind.p_input));
    if (!p) ctx.unsupported("peephole input P is not supported (only a constant all-zero P is accepted)");
    for (double v : p->as_floats())
        if (v != 0.0) ctx.unsupported("peephole input P with non-zero values is not supported");
}

// The largest hidden_size read: the zero bias of a node without B is made at read time, before any
// tensor-size check, so an attribute no weights back (hidden_size=2147483647) must not make the
// reader allocate it. Real models stay far below (hidden sizes of a few thousand).
constexpr int64_t kMaxHiddenSize = int64_t{1} << 20;

int64_t hidden_size(NodeContext& ctx) {
    const Shape& r = ctx.shape(ctx.input(kR));
    const int64_t from_r = r.size() == 3 ? r[2] : kDynamicDim;
    const int64_t hidden = ctx.attr_int("hidden_size", from_r);
    if (hidden <= 0) ctx.unsupported("hidden_size must be given (attribute or a static R shape)");
    if (from_r != kDynamicDim && hidden != from_r)
        ctx.fail("attribute hidden_size=" + std::to_string(hidden) + " disagrees with R's shape " + to_string(r) +
                 ", which must be [num_directions, gates * hidden_size, hidden_size]; fix one of them");
    if (hidden > kMaxHiddenSize)
        ctx.unsupported("hidden_size=" + std::to_string(hidden) + " is larger than the " + std::to_string(kMaxHiddenSize) +
                        " supported");
    return hidden;
}

Outputs recurrent(NodeContext& ctx, const RecurrentKind& kind) {
    check_peepholes(ctx, kind);
    if (ctx.attr_int("input_forget", 0) != 0) ctx.unsupported("input_forget=1 is not supported");
    const std::string direction = lower(ctx.attr_string("direction", "forward"));
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
        ctx.fail("attribute 'direction' has unsupported value '" + direction + "'");
    const bool batch_major = ctx.attr_int("layout", 0) != 0;
    const bool linear_before_reset = &kind == &kGru && ctx.attr_int("linear_before_reset", 0) != 0;
    const int64_t nd = direction == "bidirectional" ? 2 : 1;
    const int64_t hidden = hidden_size(ctx);

    Attributes attrs{{"hidden_size", std::to_string(hidden)}, {"direction", direction}};
    set_activations(ctx, kind, nd == 2, attrs);
    if (ctx.has_attr("clip")) attrs.set("clip", ctx.attr_float("clip", 0.0));
    if (&kind == &kGru) attrs.set("linear_before_reset", linear_before_reset);

    Output x = batch_major ? ctx.input(kX) : transpose(ctx, ctx.input(kX), {1, 0, 2});
    std::vector<Output> inputs{x, state(ctx, kind.h_input, batch_major, x, nd, hidden)};
    if (kind.c_input) inputs.push_back(state(ctx, kind.c_input, batch_major, x, nd, hidden));
    inputs.push_back(lengths(ctx, x));
    inputs.push_back(reorder_gates(ctx, kind, ctx.input(kW)));
    inputs.push_back(reorder_gates(ctx, kind, ctx.input(kR)));
    inputs.push_back(bias(ctx, kind, linear_before_reset, nd, hidden, ctx.type(x)));
    const Output seq = ctx.op(kind.ov_type, inputs, attrs);

    // Y [batch, nd, seq, hidden] -> [seq, nd, batch, hidden] or (layout=1) [batch, seq, nd, hidden];
    // Y_h and Y_c [batch, nd, hidden] -> [nd, batch, hidden] unless layout=1. Outputs the node does
    // not name are left untransposed, since nothing reads them.
    Outputs outs;
    for (size_t i = 0; i < (kind.c_input ? 3u : 2u); ++i) {
        Output o{seq.node, i};
        if (ctx.has_output(i) && i == 0) o = transpose(ctx, o, batch_major ? std::vector<int64_t>{0, 2, 1, 3}
                                                                              : std::vector<int64_t>{2, 1, 0, 3});
        else if (ctx.has_output(i) && !batch_major) o = transpose(ctx, o, {1, 0, 2});
        outs.push_back(o);
    }
    return outs;
}

Outputs lstm(NodeContext& ctx) { return recurrent(ctx, kLstm); }
Outputs gru(NodeContext& ctx) { return recurrent(ctx, kGru); }
Outputs rnn(NodeContext& ctx) { return recurrent(ctx, kRnn); }

const TranslatorRegistration registration({
    {"LSTM", lstm},
    {"GRU", gru},
    {"RNN", rnn},
});

}  // namespace

}  // namespace mosaic::onnx_import
