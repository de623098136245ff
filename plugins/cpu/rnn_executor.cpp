#include "rnn_executor.hpp"

#include "graph_queries.hpp"

#include <algorithm>
#include <cctype>
#include <unordered_map>

namespace mosaic::cpu_plugin {

namespace {

using dims = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;
constexpr auto f32 = dnnl::memory::data_type::f32;

enum class Cell { lstm, gru, rnn };

struct CellInfo {
    Cell cell;
    int64_t gates;
    const char* default_activations;
};

bool cell_of(const std::string& type, CellInfo& info) {
    if (type == "LSTMSequence") info = {Cell::lstm, 4, "sigmoid,tanh,tanh"};
    else if (type == "GRUSequence") info = {Cell::gru, 3, "sigmoid,tanh"};
    else if (type == "RNNSequence") info = {Cell::rnn, 1, "tanh"};
    else return false;
    return true;
}

// Lower case without blanks, as the reference kernel reads names.
std::string normalized(std::string s) {
    s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char ch) { return std::isspace(ch); }), s.end());
    return lower_case(s);
}

bool static_f32(const Value& v, size_t rank) {
    return v.type == ElementType::f32 && v.shape.size() == rank && describable(v.shape);
}

// Every batch item runs the whole sequence: oneDNN has no per-item lengths.
bool full_lengths(const Value& lengths, int64_t batch, int64_t seq) {
    if (!lengths.is_constant() || shape_size(lengths.shape) != batch) return false;
    for (int64_t i = 0; i < batch; ++i) {
        int64_t len = 0;
        if (lengths.type == ElementType::i32) len = static_cast<const int32_t*>(lengths.constant)[i];
        else if (lengths.type == ElementType::i64) len = static_cast<const int64_t*>(lengths.constant)[i];
        else return false;
        if (len != seq) return false;
    }
    return true;
}

// `blocks` per direction of `block` floats each, reordered from OpenVINO's gate order to oneDNN's:
// LSTM's f, i swap to i, f; GRU's z, r, h and the RNN's single gate are already oneDNN's order.
std::vector<float> to_onednn_gates(const Value& v, Cell cell, int64_t directions, int64_t blocks, int64_t block) {
    const float* src = static_cast<const float*>(v.constant);
    std::vector<float> out(src, src + shape_size(v.shape));
    if (cell != Cell::lstm) return out;
    for (int64_t d = 0; d < directions; ++d) {
        float* f = out.data() + d * blocks * block;
        std::swap_ranges(f, f + block, f + block);
    }
    return out;
}

// What every RNN primitive descriptor answers, whatever its cell.
struct Chosen {
    dnnl::primitive primitive;
    std::string impl;
    dnnl::memory::desc weights_layer, weights_iter, scratchpad;
};

template <typename Primitive>
Chosen chosen(const typename Primitive::desc& desc, const dnnl::engine& engine) {
    const typename Primitive::primitive_desc pd(desc, user_scratchpad_attr(), engine);
    return {Primitive(pd), pd.impl_info_str(), pd.weights_layer_desc(), pd.weights_iter_desc(), pd.scratchpad_desc()};
}

}  // namespace

RnnExecutor::RnnExecutor(std::string name, std::string type, std::vector<ValueId> inputs, std::vector<ValueId> outputs)
    : Executor(std::move(name), std::move(type), std::move(inputs), std::move(outputs)) {}

std::unique_ptr<Executor> RnnExecutor::create(const BuildContext& ctx, size_t node) {
    const sdk::GraphView& g = ctx.graph;
    CellInfo info{};
    if (!cell_of(g.type(node), info) || g.version(node) != "opset5") return nullptr;
    const bool has_cell = info.cell == Cell::lstm;
    const size_t lengths_port = has_cell ? 3 : 2, w_port = lengths_port + 1, r_port = w_port + 1, b_port = r_port + 1;
    if (g.input_count(node) != b_port + 1 || g.output_count(node) != (has_cell ? 3u : 2u)) return nullptr;
    const auto value = [&](size_t port) -> const Value& { return ctx.values[ctx.values.input(node, port)]; };
    const Value &x = value(0), &w = value(w_port), &r = value(r_port), &b = value(b_port);
    if (!static_f32(x, 3) || !static_f32(value(1), 3) || (has_cell && !static_f32(value(2), 3))) return nullptr;
    if (!static_f32(w, 3) || !static_f32(r, 3) || !static_f32(b, 2)) return nullptr;
    if (!w.is_constant() || !r.is_constant() || !b.is_constant()) return nullptr;

    const Attributes attrs = g.attributes(node);
    const std::string direction = normalized(attrs.get_string("direction", "forward"));
    const bool lbr = info.cell == Cell::gru && attrs.get_bool("linear_before_reset", false);
    if (attrs.get_float("clip", 0.0) != 0.0) return nullptr;
    if (normalized(attrs.get_string("activations", info.default_activations)) != info.default_activations)
        return nullptr;

    const int64_t batch = x.shape[0], seq = x.shape[1], input = x.shape[2];
    const int64_t nd = w.shape[0], hidden = r.shape[2], gates = info.gates, bias_gates = gates + (lbr ? 1 : 0);
    if (!full_lengths(value(lengths_port), batch, seq)) return nullptr;
    if (w.shape != Shape{nd, gates * hidden, input} || r.shape != Shape{nd, gates * hidden, hidden} ||
        b.shape != Shape{nd, bias_gates * hidden})
        return nullptr;
    dnnl::rnn_direction dir;
    if (direction == "forward" && nd == 1) dir = dnnl::rnn_direction::unidirectional_left2right;
    else if (direction == "reverse" && nd == 1) dir = dnnl::rnn_direction::unidirectional_right2left;
    else if (direction == "bidirectional" && nd == 2) dir = dnnl::rnn_direction::bidirectional_concat;
    else return nullptr;

    std::vector<ValueId> inputs, outputs;
    for (size_t i = 0; i < g.input_count(node); ++i) inputs.push_back(ctx.values.input(node, i));
    for (size_t i = 0; i < g.output_count(node); ++i) outputs.push_back(ctx.values.output(node, i));
    std::unique_ptr<RnnExecutor> e(new RnnExecutor(g.node_name(node), g.type(node), inputs, outputs));
    e->engine_ = ctx.engine;
    e->has_cell_ = has_cell;
    e->x_ = inputs[0];
    e->y_ = outputs[0];

    // X [N, T, I] is oneDNN's ntc; Y [N, 1, T, H] of one direction too. Two directions interleave
    // in oneDNN's dst_layer [T, N, 2H], which no strides map onto Y [N, 2, T, H].
    e->src_layer_ = dnnl::memory::desc({seq, batch, input}, f32, tag::ntc);
    e->dst_layer_ = dnnl::memory::desc({seq, batch, nd * hidden}, f32, nd == 1 ? tag::ntc : tag::tnc);
    e->state_desc_ = dnnl::memory::desc({1, nd, batch, hidden}, f32, tag::ldnc);
    // A state [N, D, H] seen as oneDNN's [1, D, N, H]: the same bytes when one of D and N is 1.
    const dnnl::memory::desc state_user =
        nd == 1 || batch == 1
            ? e->state_desc_
            : dnnl::memory::desc({1, nd, batch, hidden}, f32, dims{nd * batch * hidden, hidden, nd * hidden, 1});
    e->bias_desc_ = dnnl::memory::desc({1, nd, bias_gates, hidden}, f32, tag::ldgo);
    const dnnl::memory::desc weights_layer_any({1, nd, input, gates, hidden}, f32, tag::any);
    const dnnl::memory::desc weights_iter_any({1, nd, hidden, gates, hidden}, f32, tag::any);
    const auto fwd = dnnl::prop_kind::forward_inference;

    Chosen pd;
    try {
        const dnnl::memory::desc &src = e->src_layer_, &dst = e->dst_layer_, &state = e->state_desc_;
        if (info.cell == Cell::lstm)
            pd = chosen<dnnl::lstm_forward>({fwd, dir, src, state, state, weights_layer_any, weights_iter_any,
                                             dnnl::memory::desc(), e->bias_desc_, dst, state, state},
                                            ctx.engine);
        else if (lbr)
            pd = chosen<dnnl::lbr_gru_forward>(
                {fwd, dir, src, state, weights_layer_any, weights_iter_any, e->bias_desc_, dst, state}, ctx.engine);
        else if (info.cell == Cell::gru)
            pd = chosen<dnnl::gru_forward>(
                {fwd, dir, src, state, weights_layer_any, weights_iter_any, e->bias_desc_, dst, state}, ctx.engine);
        else
            pd = chosen<dnnl::vanilla_rnn_forward>({fwd, dnnl::algorithm::eltwise_tanh, dir, src, state,
                                                    weights_layer_any, weights_iter_any, e->bias_desc_, dst, state},
                                                   ctx.engine);
    } catch (const dnnl::error&) {
        return nullptr;  // no implementation for these sizes
    }
    e->primitive_ = pd.primitive;
    // oneDNN names its RNN without brgemm kernels (GRU in 2.6, odd sizes) "ref", though it runs
    // each step's gates as one packed sgemm; kept apart from "ref", Mosaic's own reference kernels.
    e->impl_ = pd.impl == "ref" ? "gemm:ref_rnn" : pd.impl;
    e->scratchpad_desc_ = pd.scratchpad;

    // OpenVINO's W [D, G*H, I] is oneDNN's ldgoi, R [D, G*H, H] too, B [D, G*H] is ldgo.
    e->weights_layer_data_ = to_onednn_gates(w, info.cell, nd, gates, hidden * input);
    e->weights_iter_data_ = to_onednn_gates(r, info.cell, nd, gates, hidden * hidden);
    e->bias_data_ = to_onednn_gates(b, info.cell, nd, bias_gates, hidden);
    e->weights_layer_ = PackedWeights(ctx.engine, dnnl::memory::desc({1, nd, input, gates, hidden}, f32, tag::ldgoi),
                                      e->weights_layer_data_.data(), pd.weights_layer);
    e->weights_iter_ = PackedWeights(ctx.engine, dnnl::memory::desc({1, nd, hidden, gates, hidden}, f32, tag::ldgoi),
                                     e->weights_iter_data_.data(), pd.weights_iter);
    // The packed copies are all the primitive reads; the permuted plain ones go unless read in place.
    if (e->weights_layer_.reordered()) std::vector<float>().swap(e->weights_layer_data_);
    if (e->weights_iter_.reordered()) std::vector<float>().swap(e->weights_iter_data_);

    size_t pad_bytes = e->scratchpad_desc_.get_size();
    const auto bind_state = [&](State& s, ValueId v, bool is_input) {
        s.value = v;
        s.user = state_user;
        if (state_user == e->state_desc_) return;
        s.reorder = is_input ? Reorder(ctx.engine, state_user, e->state_desc_)
                             : Reorder(ctx.engine, e->state_desc_, state_user);
        s.offset = e->scratch_.reserve(e->state_desc_.get_size());
        pad_bytes = std::max(pad_bytes, s.reorder.scratchpad_bytes());
    };
    bind_state(e->h0_, inputs[1], true);
    bind_state(e->ho_, outputs[1], false);
    if (has_cell) {
        bind_state(e->c0_, inputs[2], true);
        bind_state(e->co_, outputs[2], false);
    }
    if (nd == 2) {
        e->y_from_ = dnnl::memory::desc({seq, batch, nd, hidden}, f32, tag::abcd);
        e->y_to_ = dnnl::memory::desc({seq, batch, nd, hidden}, f32, dims{hidden, nd * seq * hidden, seq * hidden, 1});
        e->y_reorder_ = Reorder(ctx.engine, e->y_from_, e->y_to_);
        e->dst_layer_offset_ = e->scratch_.reserve(e->dst_layer_.get_size());
        pad_bytes = std::max(pad_bytes, e->y_reorder_.scratchpad_bytes());
    }
    e->pad_offset_ = e->scratch_.reserve(pad_bytes);
    return e;
}

dnnl::memory RnnExecutor::state_memory(const State& s, const ExecContext& ctx) const {
    if (s.reorder) return dnnl::memory(state_desc_, engine_, ctx.scratch + s.offset);
    return dnnl::memory(state_desc_, engine_, ctx[s.value]);
}

void RnnExecutor::execute(const ExecContext& ctx) const {
    dnnl::stream& stream = *ctx.stream;
    void* pad = ctx.scratch + pad_offset_;
    const auto user = [&](const State& s) { return dnnl::memory(s.user, engine_, ctx[s.value]); };
    const dnnl::memory h0 = state_memory(h0_, ctx), ho = state_memory(ho_, ctx);
    if (h0_.reorder) h0_.reorder.run(stream, user(h0_), h0, pad);
    const dnnl::memory dst_layer(dst_layer_, engine_, y_reorder_ ? ctx.scratch + dst_layer_offset_ : ctx[y_]);
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC_LAYER, dnnl::memory(src_layer_, engine_, ctx[x_])},
        {DNNL_ARG_SRC_ITER, h0},
        {DNNL_ARG_WEIGHTS_LAYER, dnnl::memory(weights_layer_.desc(), engine_, weights_layer_.data())},
        {DNNL_ARG_WEIGHTS_ITER, dnnl::memory(weights_iter_.desc(), engine_, weights_iter_.data())},
        {DNNL_ARG_BIAS, dnnl::memory(bias_desc_, engine_, const_cast<float*>(bias_data_.data()))},
        {DNNL_ARG_DST_LAYER, dst_layer},
        {DNNL_ARG_DST_ITER, ho}};
    if (has_cell_) {
        const dnnl::memory c0 = state_memory(c0_, ctx);
        if (c0_.reorder) c0_.reorder.run(stream, user(c0_), c0, pad);
        args[DNNL_ARG_SRC_ITER_C] = c0;
        args[DNNL_ARG_DST_ITER_C] = state_memory(co_, ctx);
    }
    if (scratchpad_desc_.get_size()) args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(scratchpad_desc_, engine_, pad);
    primitive_.execute(stream, args);
    if (ho_.reorder) ho_.reorder.run(stream, ho, user(ho_), pad);
    if (has_cell_ && co_.reorder) co_.reorder.run(stream, args.at(DNNL_ARG_DST_ITER_C), user(co_), pad);
    if (y_reorder_)
        y_reorder_.run(stream, dnnl::memory(y_from_, engine_, dst_layer.get_data_handle()),
                       dnnl::memory(y_to_, engine_, ctx[y_]), pad);
}

}  // namespace mosaic::cpu_plugin
