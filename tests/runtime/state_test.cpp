// Stateful models: ReadValue / Assign keep a variable per infer request from one inference to the
// next (query_state, reset_state, as OpenVINO's), on every device, also one that grows (a KV
// cache); make_stateful turns a recurrent state fed back by the application into such a variable.
#include "common/test_checks.hpp"
#include <mosaic/mosaic.hpp>
#include <mosaic/serialize.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>

namespace mosaic::test {
namespace {

// y = x + acc; acc = y, with acc starting at 1: a running sum.
std::shared_ptr<Model> running_sum() {
    ModelBuilder b("running_sum");
    Output x = b.parameter("x", ElementType::f32, {1, 4});
    Output init = b.constant<float>({1, 4}, {1, 1, 1, 1}, "acc_init");
    Output acc = b.op("ReadValue", {init}, {{"variable_id", "acc"}}, "acc_read", "opset6");
    Output sum = b.op("Add", {x, acc}, {}, "sum");
    b.op("Assign", {sum}, {{"variable_id", "acc"}}, "acc_write", "opset6");
    b.result(sum, "y");
    return b.build();
}

std::vector<float> run_once(InferRequest& r, const std::vector<float>& x) {
    r.set_tensor("x", Tensor::from_vector<float>({1, 4}, ElementType::f32, x));
    r.infer();
    return r.get_tensor("y").to_vector<float>();
}

class StateOn : public ::testing::TestWithParam<std::string> {};

TEST_P(StateOn, AVariableCarriesFromOneInferenceToTheNextAndResets) {
    Core core;
    CompiledModel compiled = core.compile_model(running_sum(), GetParam());
    ASSERT_EQ(compiled.inputs().size(), 1u);   // the variable is not an input
    ASSERT_EQ(compiled.outputs().size(), 1u);  // nor an output
    InferRequest r = compiled.create_infer_request();
    const std::vector<float> x = {1, 2, 3, 4};
    EXPECT_EQ(run_once(r, x), (std::vector<float>{2, 3, 4, 5}));
    EXPECT_EQ(run_once(r, x), (std::vector<float>{3, 5, 7, 9}));
    EXPECT_EQ(run_once(r, x), (std::vector<float>{4, 7, 10, 13}));
    r.reset_state();
    EXPECT_EQ(run_once(r, x), (std::vector<float>{2, 3, 4, 5}));
    // Another request has a state of its own.
    InferRequest other = compiled.create_infer_request();
    EXPECT_EQ(run_once(other, x), (std::vector<float>{2, 3, 4, 5}));
    EXPECT_EQ(run_once(r, x), (std::vector<float>{3, 5, 7, 9}));
}

TEST_P(StateOn, QueryStateReadsSetsAndResetsOneVariable) {
    Core core;
    InferRequest r = core.compile_model(running_sum(), GetParam()).create_infer_request();
    std::vector<VariableState> states = r.query_state();
    ASSERT_EQ(states.size(), 1u);
    EXPECT_EQ(states[0].get_name(), "acc");
    EXPECT_EQ(states[0].get_state().to_vector<float>(), (std::vector<float>{1, 1, 1, 1}));  // the initializer
    run_once(r, {1, 2, 3, 4});
    EXPECT_EQ(states[0].get_state().to_vector<float>(), (std::vector<float>{2, 3, 4, 5}));
    states[0].set_state(Tensor::from_vector<float>({1, 4}, ElementType::f32, {10, 20, 30, 40}));
    EXPECT_EQ(run_once(r, {1, 1, 1, 1}), (std::vector<float>{11, 21, 31, 41}));
    states[0].reset();
    EXPECT_EQ(run_once(r, {0, 0, 0, 0}), (std::vector<float>{1, 1, 1, 1}));
    EXPECT_TRUE(contains(error_of([&] { states[0].set_state(Tensor(ElementType::f32, {4})); }),
                         "variable 'acc' holds f32 [1,4] but the tensor is f32 [4]"));
}

TEST_P(StateOn, AsynchronousInferencesKeepTheStateToo) {
    Core core;
    InferRequest r = core.compile_model(running_sum(), GetParam()).create_infer_request();
    r.set_tensor("x", Tensor::from_vector<float>({1, 4}, ElementType::f32, {1, 1, 1, 1}));
    for (int i = 0; i < 3; ++i) {
        r.start_async();
        r.wait();
    }
    EXPECT_EQ(r.get_tensor("y").to_vector<float>(), (std::vector<float>{4, 4, 4, 4}));
}

// A KV cache as optimum-intel's decoders keep it: a variable declared [?,?,4] that starts as an
// empty [batch, 0, 4] (Broadcast of zero to a shape taken from the input) and gains the rows of each
// inference's x along axis 1; y is the whole cache.
std::shared_ptr<Model> growing_cache() {
    ModelBuilder b("growing_cache");
    Output x = b.parameter("x", ElementType::f32, {-1, -1, 4});
    Output batch = b.op("Gather", {b.op("ShapeOf", {x}, {}, "shape", "opset3"), b.constant<int64_t>({1}, {0}, "first"),
                                   b.constant<int64_t>({}, {0}, "axis")},
                        {}, "batch", "opset8");
    Output shape = b.op("Concat", {batch, b.constant<int64_t>({2}, {0, 4}, "empty_rows")}, {{"axis", "0"}}, "init_shape");
    Output init = b.op("Broadcast", {b.constant<float>({}, {0.0f}, "zero"), shape}, {}, "init", "opset3");
    Output cache = b.op("ReadValue", {init},
                        {{"variable_id", "cache"}, {"variable_type", "f32"}, {"variable_shape", "?,?,4"}}, "cache_read",
                        "opset6");
    Output grown = b.op("Concat", {cache, x}, {{"axis", "1"}}, "grown");
    b.op("Assign", {grown}, {{"variable_id", "cache"}}, "cache_write", "opset6");
    b.result(grown, "y");
    return b.build();
}

Tensor rows(int64_t batch, int64_t count, float first) {
    Tensor t(ElementType::f32, {batch, count, 4});
    for (size_t i = 0; i < t.get_size(); ++i) t.data<float>()[i] = first + static_cast<float>(i);
    return t;
}

std::vector<float> concatenated(const std::vector<Tensor>& parts) {  // batch 1: rows one after another
    std::vector<float> out;
    for (const Tensor& p : parts) out.insert(out.end(), p.data<float>(), p.data<float>() + p.get_size());
    return out;
}

TEST_P(StateOn, AVariableOfDynamicShapeGrowsLikeAKvCache) {
    Core core;
    CompiledModel compiled = core.compile_model(growing_cache(), GetParam());
    InferRequest r = compiled.create_infer_request();
    const Tensor a = rows(1, 2, 0), b = rows(1, 1, 100), c = rows(1, 3, 200);
    r.set_tensor("x", a);
    r.infer();
    EXPECT_EQ(to_string(r.get_tensor("y").get_shape()), "[1,2,4]");
    EXPECT_EQ(r.get_tensor("y").to_vector<float>(), concatenated({a}));
    r.set_tensor("x", b);
    r.infer();
    EXPECT_EQ(to_string(r.get_tensor("y").get_shape()), "[1,3,4]");
    EXPECT_EQ(r.get_tensor("y").to_vector<float>(), concatenated({a, b}));
    r.start_async();  // asynchronous inferences carry it too
    r.wait();
    EXPECT_EQ(r.get_tensor("y").to_vector<float>(), concatenated({a, b, b}));
    EXPECT_EQ(to_string(r.query_state().at(0).get_state().get_shape()), "[1,4,4]");

    // A reset starts from the initializer again, at the batch of the inference that follows.
    r.reset_state();
    EXPECT_TRUE(contains(error_of([&] { r.query_state().at(0).get_state(); }), "known after the next inference"));
    r.set_tensor("x", rows(2, 1, 7));
    r.infer();
    EXPECT_EQ(to_string(r.get_tensor("y").get_shape()), "[2,1,4]");

    // set_state takes any length along the dynamic axes, and nothing else.
    VariableState state = r.query_state().at(0);
    state.set_state(c);
    r.set_tensor("x", b);
    r.infer();
    EXPECT_EQ(r.get_tensor("y").to_vector<float>(), concatenated({c, b}));
    EXPECT_TRUE(contains(error_of([&] { state.set_state(Tensor(ElementType::f32, {1, 5, 3})); }),
                         "variable 'cache' holds f32 [?,?,4] but the tensor is f32 [1,5,3]"));

    // Another request has a cache of its own.
    InferRequest other = compiled.create_infer_request();
    other.set_tensor("x", c);
    other.infer();
    EXPECT_EQ(other.get_tensor("y").to_vector<float>(), concatenated({c}));
}

INSTANTIATE_TEST_SUITE_P(Devices, StateOn, ::testing::Values("REFERENCE", "CPU", "HETERO:CPU,REFERENCE", "HETERO:ACCEL,REFERENCE"),
                         DeviceTestName());

// h_out = tanh(W x + h_in): a recurrent cell whose state the application would feed back.
std::shared_ptr<Model> recurrent_cell() {
    ModelBuilder b("cell");
    Output x = b.parameter("x", ElementType::f32, {1, 3});
    Output h = b.parameter("h_in", ElementType::f32, {1, 3});
    Output w = b.constant<float>({3, 3}, {0.5f, -0.2f, 0.1f, 0.3f, 0.8f, -0.5f, -0.1f, 0.4f, 0.6f}, "w");
    Output next = b.op("Tanh", {b.op("Add", {b.op("MatMul", {x, w}, {}, "wx"), h}, {}, "pre")}, {}, "h_next");
    b.result(b.op("Multiply", {next, b.constant<float>({1}, {2.0f}, "two")}, {}, "scaled"), "y");
    b.result(next, "h_out");
    return b.build();
}

// A stateful model is queried as it compiles, its variables made inputs: ReadValue and Assign are
// answered with their variable's device, nothing the conversion adds shows, and HETERO's plan
// counts the variable as state; also a variable of dynamic shape (queried at its smallest).
TEST(State, QueryAnswersReadValueAndAssignAndThePlanCountsTheState) {
    Core core;
    for (const auto& model : {running_sum(), growing_cache()}) {
        SCOPED_TRACE(model->get_friendly_name());
        const QueryResult q = core.query_model_details(model, "HETERO:CPU,REFERENCE");
        EXPECT_TRUE(q.unsupported.empty());
        for (const Node* n : model->get_ordered_ops())
            if (n->get_type_name() == "ReadValue" || n->get_type_name() == "Assign")
                EXPECT_EQ(q.affinity.count(n->get_friendly_name()), 1u) << n->get_friendly_name();
        for (const auto& [name, where] : q.affinity)
            EXPECT_NE(model->find_node(name), nullptr) << name << " is not an op of the model";
        ASSERT_TRUE(q.plan.is_object());
        uint64_t state = 0;
        for (const auto& d : q.plan.at("memory")) state += d.at("state_bytes").get<uint64_t>();
        EXPECT_EQ(state, 4u * 4) << "one [1, 4] f32 variable, or the cache at one row: " << q.plan.at("memory").dump();
    }
}

TEST(State, MakeStatefulKeepsTheRecurrentStateInTheRequest) {
    Core core;
    const std::vector<std::vector<float>> chunks = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
    // The application feeding the state back, the way a streaming model is run without variables.
    std::vector<std::vector<float>> expected;
    {
        InferRequest r = core.compile_model(recurrent_cell(), "REFERENCE").create_infer_request();
        std::vector<float> h(3, 0.0f);
        for (const auto& x : chunks) {
            r.set_tensor("x", Tensor::from_vector<float>({1, 3}, ElementType::f32, x));
            r.set_tensor("h_in", Tensor::from_vector<float>({1, 3}, ElementType::f32, h));
            r.infer();
            expected.push_back(r.get_tensor("y").to_vector<float>());
            h = r.get_tensor("h_out").to_vector<float>();
        }
    }
    auto model = recurrent_cell();
    model->make_stateful({{"h_in", "h_out"}});
    EXPECT_EQ(model->inputs().size(), 1u);
    EXPECT_EQ(model->outputs().size(), 1u);
    for (const std::string device : {"REFERENCE", "HETERO:ACCEL,REFERENCE"}) {
        InferRequest r = core.compile_model(model, device).create_infer_request();
        for (int pass = 0; pass < 2; ++pass) {  // the second after reset_state
            for (size_t i = 0; i < chunks.size(); ++i) {
                r.set_tensor("x", Tensor::from_vector<float>({1, 3}, ElementType::f32, chunks[i]));
                r.infer();
                const auto y = r.get_tensor("y").to_vector<float>();
                for (size_t j = 0; j < y.size(); ++j) EXPECT_NEAR(y[j], expected[i][j], 1e-5f) << device << " chunk " << i;
            }
            r.reset_state();
        }
    }
}

TEST(State, AStatefulModelSurvivesTheIrRoundTrip) {
    auto model = recurrent_cell();
    model->make_stateful({{"h_in", "h_out"}});
    const auto dir = std::filesystem::temp_directory_path() / ("mosaic_state_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    serialize(*model, (dir / "cell.xml").string());
    Core core;
    auto back = core.read_model((dir / "cell.xml").string());
    std::filesystem::remove_all(dir);
    InferRequest a = core.compile_model(model, "REFERENCE").create_infer_request();
    InferRequest b = core.compile_model(back, "REFERENCE").create_infer_request();
    for (int i = 0; i < 3; ++i) {
        for (InferRequest* r : {&a, &b}) {
            r->set_tensor("x", Tensor::from_vector<float>({1, 3}, ElementType::f32, {1, 2, 3}));
            r->infer();
        }
        EXPECT_EQ(a.get_tensor("y").to_vector<float>(), b.get_tensor("y").to_vector<float>());
    }
    EXPECT_EQ(b.query_state().at(0).get_name(), "h_in");
}

TEST(State, BrokenVariablesAreClearErrors) {
    Core core;
    {
        ModelBuilder b("unassigned");
        Output x = b.parameter("x", ElementType::f32, {2});
        Output v = b.op("ReadValue", {x}, {{"variable_id", "v"}}, "read", "opset6");
        b.result(v, "y");
        EXPECT_TRUE(contains(error_of([&] { core.compile_model(b.build(), "REFERENCE"); }),
                             "ReadValue 'read' reads variable 'v', which no Assign writes"));
    }
    {
        ModelBuilder b("mismatch");
        Output x = b.parameter("x", ElementType::f32, {2});
        Output v = b.op("ReadValue", {x}, {{"variable_id", "v"}}, "read", "opset6");
        b.op("Assign", {b.op("Concat", {v, v}, {{"axis", "0"}}, "twice")}, {{"variable_id", "v"}}, "write", "opset6");
        b.result(v, "y");
        EXPECT_TRUE(contains(error_of([&] { core.compile_model(b.build(), "REFERENCE"); }),
                             "variable 'v' is read as f32 [2] but Assign 'write' writes f32 [4]"));
    }
    {
        ModelBuilder b("dynamic_without_initializer");
        Output x = b.parameter("x", ElementType::f32, {-1});
        EXPECT_TRUE(contains(error_of([&] {
                                 b.op("ReadValue", {},
                                      {{"variable_id", "v"}, {"variable_type", "f32"}, {"variable_shape", "?"}}, "read",
                                      "opset6");
                             }),
                             "a ReadValue without an initializer needs a static shape"));
    }
    {
        // The initial value of a growing variable may not read another variable.
        ModelBuilder b("initializer_reads_a_variable");
        Output x = b.parameter("x", ElementType::f32, {1, -1});
        Output first = b.op("ReadValue", {b.constant<float>({1, 1}, {0.0f}, "zero")}, {{"variable_id", "first"}}, "first_read", "opset6");
        b.op("Assign", {first}, {{"variable_id", "first"}}, "first_write", "opset6");
        Output second = b.op("ReadValue", {first},
                             {{"variable_id", "second"}, {"variable_type", "f32"}, {"variable_shape", "1,?"}}, "second_read",
                             "opset6");
        Output grown = b.op("Concat", {second, x}, {{"axis", "1"}}, "grown");
        b.op("Assign", {grown}, {{"variable_id", "second"}}, "second_write", "opset6");
        b.result(grown, "y");
        EXPECT_TRUE(contains(error_of([&] { core.compile_model(b.build(), "REFERENCE"); }),
                             "the initial value of a variable of dynamic shape reads variable 'first'"));
    }
    auto model = recurrent_cell();
    EXPECT_TRUE(contains(error_of([&] { model->make_stateful({{"h_in", "nope"}}); }), "make_stateful"));
    EXPECT_TRUE(contains(error_of([&] { model->make_stateful({{"nope", "h_out"}}); }), "no input named 'nope'"));
}

}  // namespace
}  // namespace mosaic::test
