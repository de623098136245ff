// ONNX subgraphs (control_flow.cpp, onnx_subgraph.cpp): If inlines the branch its known condition
// takes and otherwise runs only the branch taken, at run time; Loop and Scan unroll; subgraphs read outer tensors by name, which also orders the main
// graph; data-dependent control flow asks for input values; errors name the subgraph.
#include "onnx_model_test.hpp"

namespace mosaic::test {
namespace {

using ::onnx::TensorProto;

::onnx::GraphProto* add_graph_attr(::onnx::NodeProto* node, const std::string& name) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::GRAPH);
    return a->mutable_g();
}

::onnx::NodeProto* add_graph_node(::onnx::GraphProto* g, const std::string& op, const std::vector<std::string>& in,
                                  const std::vector<std::string>& out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    for (const auto& i : in) n->add_input(i);
    for (const auto& o : out) n->add_output(o);
    return n;
}

// A Scan node with one scan input, and its body with the inputs s_in (the state) and row (a slice of
// the scan input); the body's nodes and outputs are the caller's.
::onnx::GraphProto* add_scan(::onnx::ModelProto& m, const std::vector<std::string>& inputs, const std::string& name,
                             const std::vector<int64_t>& state, const std::vector<int64_t>& row,
                             ::onnx::NodeProto** node_out = nullptr) {
    auto* node = add_node(m, "Scan", inputs, {"s", "ss"}, name);
    auto* n = node->add_attribute();
    n->set_name("num_scan_inputs");
    n->set_type(::onnx::AttributeProto::INT);
    n->set_i(1);
    auto* body = add_graph_attr(node, "body");
    add_value(body->mutable_input(), "s_in", TensorProto::FLOAT, state);
    add_value(body->mutable_input(), "row", TensorProto::FLOAT, row);
    if (node_out) *node_out = node;
    return body;
}

void add_scalar_initializer(::onnx::GraphProto* g, const std::string& name, int32_t type, int64_t value) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    if (type == TensorProto::BOOL) t->add_int32_data(static_cast<int32_t>(value));
    else t->add_int64_data(value);
}

class OnnxControlFlow : public OnnxModelTest {
protected:
    // Runs a model of one f32 input, returning every output.
    std::vector<std::vector<float>> run(const std::shared_ptr<Model>& model, const std::vector<float>& x) {
        Core core;
        CompiledModel compiled = core.compile_model(model, "REFERENCE");
        InferRequest r = compiled.create_infer_request();
        const Node* p = model->get_parameters().at(0);
        r.set_tensor(Model::input_name(*p), Tensor::from_vector(p->output_shape(0), ElementType::f32, x));
        r.infer();
        std::vector<std::vector<float>> outs;
        for (size_t i = 0; i < model->get_results().size(); ++i) outs.push_back(r.get_output_tensor(i).to_vector<float>());
        return outs;
    }
};

// y = If(true) { t * x } else { t - x }, t = x + w: the If comes first in the file but reads t,
// which only its branches name, so the importer must order it after t's producer.
::onnx::ModelProto if_model(bool cond_is_input) {
    auto m = onnx_model();
    auto* g = m.mutable_graph();
    add_input(m, "x", {2});
    if (cond_is_input) add_input(m, "cond", {}, TensorProto::BOOL);
    else add_scalar_initializer(g, "cond", TensorProto::BOOL, 1);
    add_initializer(m, "w", {2}, {10, 20});
    auto* node = add_node(m, "If", {"cond"}, {"y"}, "choose");
    auto* then_g = add_graph_attr(node, "then_branch");
    add_graph_node(then_g, "Mul", {"t", "x"}, {"then_y"});
    add_value(then_g->mutable_output(), "then_y", TensorProto::FLOAT, {2});
    auto* else_g = add_graph_attr(node, "else_branch");
    add_graph_node(else_g, "Sub", {"t", "x"}, {"else_y"});
    add_value(else_g->mutable_output(), "else_y", TensorProto::FLOAT, {2});
    add_node(m, "Add", {"x", "w"}, {"t"}, "t");
    add_output(m, "y", {2});
    return m;
}

TEST_F(OnnxControlFlow, IfInlinesTheTakenBranchReadingOuterTensorsDefinedLaterInTheFile) {
    EXPECT_EQ(run(read(if_model(false)), {1, 2}).at(0), (std::vector<float>{11, 44}));
}

// The condition is an input: one compiled model takes either branch, call after call.
TEST_F(OnnxControlFlow, IfWithAConditionGivenAtRunTimeTakesTheBranchItSelects) {
    Core core;
    for (const std::string device : {"REFERENCE", "CPU"}) {
        InferRequest r = core.compile_model(read(if_model(true)), device).create_infer_request();
        for (const bool cond : {true, false, true}) {
            r.set_tensor("x", Tensor::from_vector<float>({2}, ElementType::f32, {1, 2}));
            Tensor c(ElementType::boolean, {});
            *c.data<uint8_t>() = cond;
            r.set_tensor("cond", c);
            r.infer();
            EXPECT_EQ(r.get_tensor("y").to_vector<float>(), cond ? (std::vector<float>{11, 44}) : (std::vector<float>{10, 20}))
                << device;
        }
    }
}

TEST_F(OnnxControlFlow, IfWhoseBranchesDisagreeIsAClearError) {
    auto m = if_model(true);
    auto* else_g = m.mutable_graph()->mutable_node(0)->mutable_attribute(1)->mutable_g();
    // else_branch now yields an i64: the branches disagree in type.
    auto* cast = add_graph_node(else_g, "Cast", {"else_y"}, {"else_i"});
    auto* to = cast->add_attribute();
    to->set_name("to");
    to->set_type(::onnx::AttributeProto::INT);
    to->set_i(TensorProto::INT64);
    else_g->mutable_output(0)->set_name("else_i");
    const std::string e = read_error(m);
    EXPECT_NE(e.find("'choose' (If"), std::string::npos) << e;
    EXPECT_NE(e.find("output 0 is f32 in then_branch but i64 in else_branch; the branches of an If must agree in type"),
              std::string::npos) << e;
}

// Branches that give outputs of other shapes: the output's differing dimension is dynamic, and each
// inference has the shape of the branch it takes.
TEST_F(OnnxControlFlow, IfWhoseBranchesGiveOtherShapesRunsEachAtItsShape) {
    auto shapes = if_model(true);
    auto* other = shapes.mutable_graph()->mutable_node(0)->mutable_attribute(1)->mutable_g();
    add_graph_node(other, "Concat", {"else_y", "else_y"}, {"else_2"})->add_attribute()->set_name("axis");
    other->mutable_node(1)->mutable_attribute(0)->set_type(::onnx::AttributeProto::INT);
    other->mutable_output(0)->set_name("else_2");
    std::shared_ptr<Model> model = read(shapes);
    EXPECT_EQ(to_string(model->output(0).get_partial_shape()), "[?]");
    Core core;
    for (const std::string device : {"REFERENCE", "CPU"}) {
        InferRequest r = core.compile_model(model, device).create_infer_request();
        for (const bool cond : {false, true}) {
            r.set_tensor("x", Tensor::from_vector<float>({2}, ElementType::f32, {1, 2}));
            Tensor c(ElementType::boolean, {});
            *c.data<uint8_t>() = cond;
            r.set_tensor("cond", c);
            r.infer();
            EXPECT_EQ(r.get_tensor("y").to_vector<float>(),
                      cond ? (std::vector<float>{11, 44}) : (std::vector<float>{10, 20, 10, 20})) << device;
        }
    }
}

TEST_F(OnnxControlFlow, IfWhoseConditionIsNotOneBooleanIsAClearError) {
    auto m = if_model(true);
    m.mutable_graph()->mutable_input(1)->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::INT64);
    const std::string e = read_error(m);
    EXPECT_NE(e.find("'choose' (If"), std::string::npos) << e;
    EXPECT_NE(e.find("the condition must be one boolean, got i64 []"), std::string::npos) << e;
    auto two = if_model(true);
    auto* dims = two.mutable_graph()->mutable_input(1)->mutable_type()->mutable_tensor_type()->mutable_shape();
    dims->add_dim()->set_dim_value(2);
    const std::string t = read_error(two);
    EXPECT_NE(t.find("the condition must be one boolean, got boolean [2]"), std::string::npos) << t;
}

// v = x; 3 times: v = v + x, scanning each v; the body reads x from the main graph.
TEST_F(OnnxControlFlow, LoopUnrollsWithScanOutputs) {
    auto m = onnx_model();
    auto* g = m.mutable_graph();
    add_input(m, "x", {2});
    add_scalar_initializer(g, "M", TensorProto::INT64, 3);
    auto* node = add_node(m, "Loop", {"M", "", "x"}, {"v", "vs"}, "loop");
    auto* body = add_graph_attr(node, "body");
    add_value(body->mutable_input(), "i", TensorProto::INT64, {});
    add_value(body->mutable_input(), "cond_in", TensorProto::BOOL, {});
    add_value(body->mutable_input(), "v_in", TensorProto::FLOAT, {2});
    add_graph_node(body, "Identity", {"cond_in"}, {"cond_out"});
    add_graph_node(body, "Add", {"v_in", "x"}, {"v_out"});
    add_graph_node(body, "Identity", {"v_out"}, {"scan"});
    add_value(body->mutable_output(), "cond_out", TensorProto::BOOL, {});
    add_value(body->mutable_output(), "v_out", TensorProto::FLOAT, {2});
    add_value(body->mutable_output(), "scan", TensorProto::FLOAT, {2});
    add_output(m, "v", {2});
    add_output(m, "vs", {3, 2});
    const auto outs = run(read(m), {1, -1});
    EXPECT_EQ(outs.at(0), (std::vector<float>{4, -4}));
    EXPECT_EQ(outs.at(1), (std::vector<float>{2, -2, 3, -3, 4, -4}));
}

// s = 0; for each row r of x (last first): s = s + r, scanning s.
TEST_F(OnnxControlFlow, ScanUnrollsOverItsInputInEitherDirection) {
    auto m = onnx_model(11);
    add_input(m, "x", {3, 2});
    add_initializer(m, "s0", {2}, {0, 0});
    ::onnx::NodeProto* node = nullptr;
    auto* body = add_scan(m, {"s0", "x"}, "scan", {2}, {2}, &node);
    auto* d = node->add_attribute();
    d->set_name("scan_input_directions");
    d->set_type(::onnx::AttributeProto::INTS);
    d->add_ints(1);
    add_graph_node(body, "Add", {"s_in", "row"}, {"s_out"});
    add_graph_node(body, "Identity", {"s_out"}, {"scan"});
    add_value(body->mutable_output(), "s_out", TensorProto::FLOAT, {2});
    add_value(body->mutable_output(), "scan", TensorProto::FLOAT, {2});
    add_output(m, "s", {2});
    add_output(m, "ss", {3, 2});
    const auto outs = run(read(m), {1, 2, 3, 4, 5, 6});
    EXPECT_EQ(outs.at(0), (std::vector<float>{9, 12}));
    EXPECT_EQ(outs.at(1), (std::vector<float>{5, 6, 8, 10, 9, 12}));
}

// Found by fuzzing (tests/fuzz/regressions/onnx_reader): Scan-8 read the batch size from the first
// dimension of its first state, and a scalar state has none (an empty shape was indexed).
TEST_F(OnnxControlFlow, Scan8ScalarStateIsRefusedNamingTheInput) {
    auto m = onnx_model(8);
    add_input(m, "x", {1, 3, 2});
    add_initializer(m, "s0", {}, {0});
    auto* body = add_scan(m, {"", "s0", "x"}, "scan8", {}, {2});
    add_graph_node(body, "Identity", {"s_in"}, {"s_out"});
    add_graph_node(body, "Identity", {"row"}, {"scan"});
    add_value(body->mutable_output(), "s_out", TensorProto::FLOAT, {});
    add_value(body->mutable_output(), "scan", TensorProto::FLOAT, {2});
    add_output(m, "s", {1});
    add_output(m, "ss", {1, 3, 2});
    const std::string e = read_error(m);
    for (const char* part : {"'scan8' (Scan", "input 1 has shape []", "a batch axis on every state"})
        EXPECT_NE(e.find(part), std::string::npos) << part << " in: " << e;
}

// The unrolling limit holds for the whole Scan-8 node: 4096 batch items of 4 positions of a 5-node
// body are 81,920 nodes, though each item alone (20) is far below the limit.
TEST_F(OnnxControlFlow, Scan8UnrollingIsBoundedOverEveryBatchItem) {
    auto m = onnx_model(8);
    add_input(m, "x", {4096, 4, 2});
    add_initializer(m, "s0", {4096, 2}, std::vector<float>(4096 * 2, 0.0f));
    auto* body = add_scan(m, {"", "s0", "x"}, "scan8", {2}, {2});
    add_graph_node(body, "Add", {"s_in", "row"}, {"a"});
    add_graph_node(body, "Relu", {"a"}, {"b"});
    add_graph_node(body, "Neg", {"b"}, {"c"});
    add_graph_node(body, "Neg", {"c"}, {"s_out"});
    add_graph_node(body, "Identity", {"s_out"}, {"scan"});
    add_value(body->mutable_output(), "s_out", TensorProto::FLOAT, {2});
    add_value(body->mutable_output(), "scan", TensorProto::FLOAT, {2});
    add_output(m, "s", {4096, 2});
    add_output(m, "ss", {4096, 4, 2});
    const std::string e = read_error(m);
    for (const char* part : {"'scan8' (Scan", "4096 batch items of 4 positions of a 5-node body", "limit of 65536"})
        EXPECT_NE(e.find(part), std::string::npos) << part << " in: " << e;
}

// The unrolling limit holds for the sum over the model, so that loops nested in loops (whose
// unrollings multiply: a fuzzed Scan in a Scan took 26 s to read) stay bounded. It counts every node
// unrolling writes, the slicing of the scan input (3) and the stacking of the output (2) as well as
// the body's 2. Two Scans of 5,000 positions: each alone (35,000 nodes) is under the limit, both are
// not; counting only the body (10,000 each), both were.
TEST_F(OnnxControlFlow, UnrollingIsBoundedOverTheWholeModel) {
    auto m = onnx_model(9);
    add_input(m, "x", {5000, 1});
    add_initializer(m, "s0", {1}, {0.0f});
    for (const std::string name : {"first", "second"}) {
        ::onnx::NodeProto* node = nullptr;
        auto* body = add_scan(m, {"s0", "x"}, name, {1}, {1}, &node);
        node->set_output(0, name + "_s");
        node->set_output(1, name + "_ss");
        add_graph_node(body, "Add", {"s_in", "row"}, {"s_out"});
        add_graph_node(body, "Identity", {"s_out"}, {"scan"});
        add_value(body->mutable_output(), "s_out", TensorProto::FLOAT, {1});
        add_value(body->mutable_output(), "scan", TensorProto::FLOAT, {1});
        add_output(m, name + "_s", {1});
    }
    const std::string e = read_error(m);
    for (const char* part : {"'second' (Scan", "unrolling 5000 positions of a 2-node body (7 nodes a position)",
                             "limit of 65536", "in the whole model: 35000 are unrolled already"})
        EXPECT_NE(e.find(part), std::string::npos) << part << " in: " << e;
}

TEST_F(OnnxControlFlow, UndefinedNameReadByABranchNamesTheIfAndTheName) {
    auto m = if_model(false);
    m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g()->mutable_node(0)->set_input(0, "nowhere");
    const std::string e = read_error(m);
    EXPECT_NE(e.find("'choose' (If)"), std::string::npos) << e;
    EXPECT_NE(e.find("'nowhere'"), std::string::npos) << e;
}

TEST_F(OnnxControlFlow, SequenceOutputsOfABranchAreUnsupported) {
    auto m = if_model(false);
    auto* out = m.mutable_graph()->mutable_node(0)->mutable_attribute(1)->mutable_g()->mutable_output(0);
    out->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
        TensorProto::FLOAT);
    const std::string e = read_error(m);
    EXPECT_NE(e.find("a sequence"), std::string::npos) << e;
}

}  // namespace
}  // namespace mosaic::test
