// Control flow built in code (Model::add_control_flow, control_flow.hpp): an If on a condition
// input and a Loop on a trip-count input, run from several threads at once, synchronously and
// asynchronously, each request taking its own branch and count; and what malformed control-flow
// nodes get.
#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <thread>

namespace mosaic::test {
namespace {

std::shared_ptr<Model> branch(const std::string& name, const std::function<Output(ModelBuilder&, Output)>& f) {
    ModelBuilder b(name);
    Output x = b.parameter(name + "/x", ElementType::f32, {4});
    b.result(f(b, x), name + "/y");
    return b.build();
}

std::shared_ptr<Model> then_branch() {
    return branch("twice", [](ModelBuilder& b, Output x) { return b.op("Multiply", {x, b.constant<float>({}, {2.0f}, "two")}); });
}

std::shared_ptr<Model> else_branch() {
    return branch("less_one", [](ModelBuilder& b, Output x) { return b.op("Subtract", {x, b.constant<float>({}, {1.0f}, "one")}); });
}

// (iteration, condition, acc, x) -> (condition, acc + x, acc + x): acc carried, each value stacked.
std::shared_ptr<Model> loop_body() {
    ModelBuilder b("accumulate");
    b.parameter("iteration", ElementType::i64, {});
    Output condition = b.parameter("condition", ElementType::boolean, {});
    Output acc = b.parameter("acc", ElementType::f32, {4});
    Output x = b.parameter("x", ElementType::f32, {4});
    Output next = b.op("Add", {acc, x}, {}, "next");
    b.result(condition, "condition_out");
    b.result(next, "acc_out");
    b.result(next, "row");
    return b.build();
}

// y = cond ? x * 2 : x - 1; sum = n times acc += x from zeros, rows = each iteration's acc.
std::shared_ptr<Model> control_flow_model() {
    auto model = std::make_shared<Model>("control_flow");
    Node* x = model->add_parameter("x", ElementType::f32, {4});
    Node* cond = model->add_parameter("cond", ElementType::boolean, {});
    Node* n = model->add_parameter("n", ElementType::i64, {});
    Node* choose = model->add_control_flow("If", "opset8", {cond->output(0), x->output(0)}, {then_branch(), else_branch()},
                                           {}, "choose");
    Node* zeros = model->add_constant(ElementType::f32, {4}, Buffer::from_vector<float>({0, 0, 0, 0}), "zeros");
    Node* always = model->add_constant(ElementType::boolean, {}, Buffer::from_vector<uint8_t>({1}), "always");
    Node* repeat = model->add_control_flow("Loop", "opset5", {n->output(0), always->output(0), zeros->output(0), x->output(0)},
                                           {loop_body()}, {{"carried", "1"}}, "repeat");
    model->add_result(choose->output(0), "y");
    model->add_result(repeat->output(0), "sum");
    model->add_result(repeat->output(1), "rows");
    model->validate();
    return model;
}

class ControlFlowOn : public ::testing::TestWithParam<std::string> {};

TEST_P(ControlFlowOn, ConcurrentRequestsTakeTheirOwnBranchAndCount) {
    Core core;
    CompiledModel compiled = core.compile_model(control_flow_model(), GetParam());
    constexpr int kThreads = 4, kRounds = 30;
    std::vector<std::thread> threads;
    std::vector<std::string> failures(kThreads);
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            try {
                InferRequest r = compiled.create_infer_request();
                for (int k = 0; k < kRounds; ++k) {
                    const bool cond = (t + k) % 2 == 0;
                    const int64_t n = (t + k) % 5;
                    const std::vector<float> x{1.0f + t, 2.0f, -3.0f, 0.5f * k};
                    r.set_tensor("x", Tensor::from_vector<float>({4}, ElementType::f32, x));
                    Tensor c(ElementType::boolean, {});
                    *c.data<uint8_t>() = cond;
                    r.set_tensor("cond", c);
                    r.set_tensor("n", Tensor::from_vector<int64_t>({}, ElementType::i64, {n}));
                    if (k % 2) {
                        r.start_async();
                        r.wait();
                    } else {
                        r.infer();
                    }
                    const auto y = r.get_tensor("y").to_vector<float>(), sum = r.get_tensor("sum").to_vector<float>();
                    const Tensor rows = r.get_tensor("rows");
                    for (size_t i = 0; i < 4; ++i) {
                        if (y[i] != (cond ? x[i] * 2 : x[i] - 1)) throw std::runtime_error("y is wrong");
                        if (sum[i] != x[i] * static_cast<float>(n)) throw std::runtime_error("sum is wrong");
                    }
                    if (rows.get_shape() != Shape{n, 4}) throw std::runtime_error("rows is " + to_string(rows.get_shape()));
                    for (int64_t j = 0; j < n; ++j)
                        for (size_t i = 0; i < 4; ++i)
                            if (rows.data<float>()[j * 4 + static_cast<int64_t>(i)] != x[i] * static_cast<float>(j + 1))
                                throw std::runtime_error("rows are wrong");
                }
            } catch (const std::exception& e) {
                failures[t] = e.what();
            }
        });
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

INSTANTIATE_TEST_SUITE_P(Devices, ControlFlowOn, ::testing::Values("REFERENCE", "CPU", "HETERO:CPU,REFERENCE", "HETERO:ACCEL,REFERENCE"),
                         [](const auto& info) {
                             std::string name = info.param;
                             for (char& ch : name)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return name;
                         });

// On HETERO a body runs whole on the first device that runs all of it (HETERO_PLACEMENT ONE_DEVICE):
// a branch with an op the first device lacks (ACCEL has no Multiply) goes to REFERENCE entire, where
// a split would cross devices twice each time the branch is taken; a branch ACCEL runs stays there.
TEST(ControlFlowOnHetero, EachBodyRunsWholeOnOneDevice) {
    auto plus_one_relu = [](ModelBuilder& b, Output x) {
        return b.op("Relu", {b.op("Add", {x, b.constant<float>({}, {1.0f}, "one")}, {}, "plus_one")}, {}, "relu");
    };
    std::shared_ptr<Model> then_body = branch("split_if_greedy", [&](ModelBuilder& b, Output x) {
        return b.op("Multiply", {plus_one_relu(b, x), b.constant<float>({}, {2.0f}, "two")}, {}, "twice");
    });
    std::shared_ptr<Model> else_body = branch("on_accel", plus_one_relu);
    auto model = std::make_shared<Model>("hetero_bodies");
    Node* x = model->add_parameter("x", ElementType::f32, {4});
    Node* cond = model->add_parameter("cond", ElementType::boolean, {});
    Node* choose = model->add_control_flow("If", "opset8", {cond->output(0), x->output(0)}, {then_body, else_body}, {}, "choose");
    model->add_result(choose->output(0), "y");
    model->validate();

    Core core;
    InferRequest r = core.compile_model(model, "HETERO:ACCEL,REFERENCE", {{"PERF_COUNT", true}}).create_infer_request();
    const std::vector<float> in{-3.0f, -1.0f, 0.5f, 2.0f};
    r.set_tensor("x", Tensor::from_vector<float>({4}, ElementType::f32, in));
    for (const bool taken : {true, false}) {
        Tensor c(ElementType::boolean, {});
        *c.data<uint8_t>() = taken;
        r.set_tensor("cond", c);
        r.infer();
        const std::vector<float> y = r.get_tensor("y").to_vector<float>();
        for (size_t i = 0; i < 4; ++i) EXPECT_EQ(y[i], std::max(in[i] + 1.0f, 0.0f) * (taken ? 2.0f : 1.0f)) << i;
        size_t body_records = 0;
        for (const ProfilingInfo& p : r.get_profiling_info()) {
            if (p.node_name == "choose") continue;  // the If itself, run by the host
            ++body_records;
            EXPECT_EQ(p.node_name.rfind("subgraph0: ", 0), 0u) << "a second subgraph: " << p.node_name;
            EXPECT_NE(p.node_type, "Transfer") << p.node_name;
        }
        EXPECT_GT(body_records, 0u) << "the taken branch's records";
    }
}

std::string validate_error(const std::function<void(Model&, Node* x)>& add) {
    Model model("bad");
    Node* x = model.add_parameter("x", ElementType::f32, {4});
    add(model, x);
    try {
        model.validate();
    } catch (const ModelError& e) {
        return e.what();
    }
    return "";
}

TEST(ControlFlowErrors, MalformedNodesAreNamed) {
    // An If with one body.
    std::string e = validate_error([](Model& m, Node* x) {
        Node* c = m.add_parameter("c", ElementType::boolean, {});
        m.add_result(m.add_control_flow("If", "opset8", {c->output(0), x->output(0)}, {then_branch()}, {}, "lonely")->output(0));
    });
    EXPECT_NE(e.find("'lonely' (If-opset8): an If holds two bodies"), std::string::npos) << e;
    // A condition that is not one boolean.
    e = validate_error([](Model& m, Node* x) {
        m.add_result(m.add_control_flow("If", "opset8", {x->output(0), x->output(0)}, {then_branch(), else_branch()}, {},
                                        "by_float")->output(0));
    });
    EXPECT_NE(e.find("'by_float' (If-opset8): the condition must be one boolean, got f32 [4]"), std::string::npos) << e;
    // A Loop whose body gives a carried value of another rank.
    e = validate_error([](Model& m, Node* x) {
        ModelBuilder b("flatten");
        b.parameter("i", ElementType::i64, {});
        Output c = b.parameter("c", ElementType::boolean, {});
        Output v = b.parameter("v", ElementType::f32, {4});
        b.result(c, "c_out");
        b.result(b.op("Reshape", {v, b.constant<int64_t>({2}, {2, 2}, "square")}, {{"special_zero", "false"}}), "v_out");
        Node* n = m.add_constant(ElementType::i64, {}, Buffer::from_vector<int64_t>({2}), "n");
        Node* yes = m.add_constant(ElementType::boolean, {}, Buffer::from_vector<uint8_t>({1}), "yes");
        m.add_result(m.add_control_flow("Loop", "opset5", {n->output(0), yes->output(0), x->output(0)}, {b.build()},
                                        {{"carried", "1"}}, "reshaping")->output(0));
    });
    EXPECT_NE(e.find("'reshaping' (Loop-opset5): the body does not hold at its input shapes: loop-carried value 0 enters "
                     "as f32 [4] but the body returns f32 [2,2]"), std::string::npos) << e;
}

}  // namespace
}  // namespace mosaic::test
