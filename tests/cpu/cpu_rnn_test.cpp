// LSTMSequence, GRUSequence and RNNSequence on oneDNN's RNN primitives: every direction and a few
// sizes equal REFERENCE, and profiling names oneDNN's implementation. What oneDNN cannot compute
// as the op asks (other activations, clipping, shorter sequences, weights computed at run time)
// stays on the reference kernel and still gives the same results.
#include "cpu/cpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test {
namespace {

const AnyMap kProfile{{"PERF_COUNT", true}};

struct RnnCase {
    const char* op;
    const char* direction;
    int64_t batch, seq, input, hidden;
    bool linear_before_reset = false;
};

int64_t gates_of(const std::string& op) { return op == "LSTMSequence" ? 4 : op == "GRUSequence" ? 3 : 1; }

struct RnnModel {
    std::shared_ptr<Model> model;
    Inputs inputs;
};

// One sequence op with random constant weights. `attrs` add to the case's; `lengths`
// defaults to the whole sequence for every batch item; `runtime_weights` makes W a Parameter.
RnnModel rnn_model(const RnnCase& c, Attributes attrs = {}, std::vector<int32_t> lengths = {},
                   bool runtime_weights = false) {
    const bool lstm = std::string(c.op) == "LSTMSequence";
    const int64_t nd = std::string(c.direction) == "bidirectional" ? 2 : 1, g = gates_of(c.op);
    const int64_t bias_rows = (g + (c.linear_before_reset ? 1 : 0)) * c.hidden;
    if (lengths.empty()) lengths.assign(static_cast<size_t>(c.batch), static_cast<int32_t>(c.seq));
    RnnModel m;
    ModelBuilder b("rnn");
    const Shape x_shape{c.batch, c.seq, c.input}, state{c.batch, nd, c.hidden}, w_shape{nd, g * c.hidden, c.input};
    std::vector<Output> in{b.parameter("x", ElementType::f32, x_shape), b.parameter("h0", ElementType::f32, state)};
    m.inputs["x"] = random_tensor(x_shape, 1);
    m.inputs["h0"] = random_tensor(state, 2);
    if (lstm) {
        in.push_back(b.parameter("c0", ElementType::f32, state));
        m.inputs["c0"] = random_tensor(state, 3);
    }
    in.push_back(b.constant<int32_t>({c.batch}, lengths, "lengths"));
    if (runtime_weights) {
        in.push_back(b.parameter("w", ElementType::f32, w_shape));
        m.inputs["w"] = Tensor::from_vector(w_shape, ElementType::f32,
                                            random_values(static_cast<size_t>(shape_size(w_shape)), 4, -0.5f, 0.5f));
    } else {
        in.push_back(random_constant(b, w_shape, 4, "w"));
    }
    in.push_back(random_constant(b, {nd, g * c.hidden, c.hidden}, 5, "r"));
    in.push_back(random_constant(b, {nd, bias_rows}, 6, "b"));
    attrs.set("direction", c.direction);
    attrs.set("hidden_size", c.hidden);
    if (c.linear_before_reset) attrs.set("linear_before_reset", true);
    const Output y = b.op(c.op, in, attrs, "rnn");
    b.result(y, "y");
    b.result(Output{y.node, 1}, "ho");
    if (lstm) b.result(Output{y.node, 2}, "co");
    m.model = b.build();
    return m;
}

const ProfilingInfo& rnn_record(const RunResult& r) {
    const ProfilingInfo* p = record_named(r.profile, "rnn");
    if (!p) throw std::runtime_error("no profiling record of the op:" + contents(r.profile));
    return *p;
}

std::string case_name(const RnnCase& c) {
    return std::string(c.op) + "_" + c.direction + "_n" + std::to_string(c.batch) + "_t" + std::to_string(c.seq) +
           "_i" + std::to_string(c.input) + "_h" + std::to_string(c.hidden) + (c.linear_before_reset ? "_lbr" : "");
}

class CpuRnn : public ::testing::TestWithParam<RnnCase> {};

TEST_P(CpuRnn, MatchesReferenceOnOneDnn) {
    const RnnModel m = rnn_model(GetParam());
    const RunResult r = expect_matches_reference(m.model, m.inputs, kProfile);
    const ProfilingInfo& p = rnn_record(r);
    EXPECT_EQ(p.node_type, GetParam().op) << contents(r.profile);
    EXPECT_NE(p.exec_type, "ref") << contents(r.profile);
}

std::vector<RnnCase> onednn_cases() {
    std::vector<RnnCase> cases;
    for (const char* op : {"LSTMSequence", "GRUSequence", "RNNSequence"})
        for (const char* direction : {"forward", "reverse", "bidirectional"}) {
            cases.push_back({op, direction, 1, 1, 3, 2});
            cases.push_back({op, direction, 2, 5, 7, 8});
            cases.push_back({op, direction, 3, 9, 16, 32});
            if (std::string(op) == "GRUSequence") cases.push_back({op, direction, 3, 6, 5, 12, true});
        }
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Ops, CpuRnn, ::testing::ValuesIn(onednn_cases()),
                         [](const ::testing::TestParamInfo<RnnCase>& info) { return case_name(info.param); });

// What oneDNN has no form for runs on the reference kernel, with the same results as REFERENCE.
void expect_on_reference(const RnnModel& m) {
    const RunResult r = expect_matches_reference(m.model, m.inputs, kProfile);
    EXPECT_EQ(rnn_record(r).exec_type, "ref") << contents(r.profile);
}

TEST(CpuRnnFallback, OtherActivationsStayOnReference) {
    expect_on_reference(rnn_model({"LSTMSequence", "forward", 2, 4, 3, 5}, {{"activations", "sigmoid,relu,tanh"}}));
    expect_on_reference(rnn_model({"GRUSequence", "bidirectional", 2, 4, 3, 5}, {{"activations", "hardsigmoid,tanh"}}));
    expect_on_reference(rnn_model({"RNNSequence", "reverse", 2, 4, 3, 5}, {{"activations", "relu"}}));
}

TEST(CpuRnnFallback, DefaultActivationsSpelledOutRunOnOneDnn) {
    const RnnModel m = rnn_model({"LSTMSequence", "forward", 2, 4, 3, 5}, {{"activations", "Sigmoid, Tanh, Tanh"}});
    const RunResult r = expect_matches_reference(m.model, m.inputs, kProfile);
    EXPECT_NE(rnn_record(r).exec_type, "ref") << contents(r.profile);
}

TEST(CpuRnnFallback, ClipStaysOnReference) {
    expect_on_reference(rnn_model({"LSTMSequence", "bidirectional", 2, 4, 3, 5}, {{"clip", "0.25"}}));
    expect_on_reference(rnn_model({"GRUSequence", "forward", 2, 4, 3, 5}, {{"clip", "0.25"}}));
}

TEST(CpuRnnFallback, ShorterSequencesStayOnReference) {
    expect_on_reference(rnn_model({"LSTMSequence", "bidirectional", 3, 5, 4, 6}, {}, {5, 2, 0}));
    expect_on_reference(rnn_model({"GRUSequence", "reverse", 3, 5, 4, 6}, {}, {1, 5, 3}));
}

TEST(CpuRnnFallback, RuntimeWeightsStayOnReference) {
    expect_on_reference(rnn_model({"LSTMSequence", "forward", 2, 4, 3, 5}, {}, {}, true));
    expect_on_reference(rnn_model({"GRUSequence", "bidirectional", 2, 4, 3, 5}, {}, {}, true));
}

}  // namespace
}  // namespace mosaic::test
