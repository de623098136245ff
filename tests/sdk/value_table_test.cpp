// The SDK's value table (mosaic/sdk/value_table.hpp), which the CPU, GPU and REFERENCE devices read
// their graphs through: what folds at compile time and to which bytes, what a view becomes under
// each option, which Results a device writes in place and which it copies, and what a fold that
// fails gets.
#include <mosaic/sdk/owned_graph.hpp>
#include <mosaic/sdk/value_table.hpp>

#include <gtest/gtest.h>

#include <cstring>

namespace mosaic::sdk {
namespace {

// x (Parameter f32 [2,3]) + (a + b), a and b constants: the inner Add folds, the outer runs.
// Reshape of the sum to [6]; ShapeOf(x) (static: folds); Results: the reshape, the folded sum,
// x itself and the shape.
struct Graph {
    const float a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
    const int64_t six[1] = {6};
    OwnedGraph graph;
    enum : size_t { x, ca, cb, sum, add, shape, reshape, shape_of, r_reshape, r_sum, r_x, r_shape };

    Graph() {
        auto node = [&](std::string type, std::string name, std::vector<PortRef> in, ElementType t, Shape s,
                        const void* bytes = nullptr, size_t size = 0) {
            OwnedNode n{std::move(type), "opset1", std::move(name), std::move(in), {}, {}, {}, {}, bytes, size};
            if (n.type != "Result") {
                n.output_types = {t};
                n.output_shapes = {s};
            }
            graph.nodes.push_back(std::move(n));
        };
        const ElementType f32 = ElementType::f32, i64 = ElementType::i64;
        node("Parameter", "x", {}, f32, {2, 3});
        node("Constant", "a", {}, f32, {3}, a, sizeof(a));
        node("Constant", "b", {}, f32, {3}, b, sizeof(b));
        node("Add", "sum", {{ca, 0}, {cb, 0}}, f32, {3});
        node("Add", "add", {{x, 0}, {sum, 0}}, f32, {2, 3});
        node("Constant", "shape", {}, i64, {1}, six, sizeof(six));
        node("Reshape", "reshape", {{add, 0}, {shape, 0}}, f32, {6});
        node("ShapeOf", "shape_of", {{x, 0}}, i64, {2});
        node("Result", "out_reshape", {{reshape, 0}}, f32, {});
        node("Result", "out_sum", {{sum, 0}}, f32, {});
        node("Result", "out_x", {{x, 0}}, f32, {});
        node("Result", "out_shape", {{shape_of, 0}}, f32, {});
    }
    GraphView view() const { return GraphView(graph.view()); }
};

template <class T>
std::vector<T> bytes_of(const Value& v) {
    std::vector<T> out(shape_size(v.shape));
    std::memcpy(out.data(), v.constant, out.size() * sizeof(T));
    return out;
}

TEST(ValueTable, ConstantsFoldOnceWithTheReferenceKernelsAndTheRestRuns) {
    Graph g;
    const ValueTable values(g.view());
    EXPECT_EQ(values.folded_nodes(), 2u);  // the inner Add and ShapeOf
    EXPECT_FALSE(values.runs(Graph::sum));
    EXPECT_FALSE(values.runs(Graph::shape_of));
    EXPECT_TRUE(values.runs(Graph::add));
    EXPECT_TRUE(values.runs(Graph::reshape));  // the default: a view of a computed tensor runs (a copy)
    const Value& sum = values[values.output(Graph::sum, 0)];
    ASSERT_TRUE(sum.is_constant());
    EXPECT_EQ(sum.producer, SIZE_MAX);
    EXPECT_EQ(bytes_of<float>(sum), (std::vector<float>{11, 22, 33}));
    EXPECT_EQ(bytes_of<int64_t>(values[values.output(Graph::shape_of, 0)]), (std::vector<int64_t>{2, 3}));

    const Value& add = values[values.output(Graph::add, 0)];
    EXPECT_EQ(add.kind, Value::Kind::intermediate);
    EXPECT_EQ(add.producer, size_t{Graph::add});
    ASSERT_EQ(add.uses.size(), 1u);
    EXPECT_EQ(add.uses[0].node, size_t{Graph::reshape});
    EXPECT_EQ(values.input(Graph::add, 1), values.output(Graph::sum, 0));
}

TEST(ValueTable, AResultIsWrittenInPlaceOnlyWhenNothingElseClaimsItsValue) {
    Graph g;
    const ValueTable values(g.view());
    const Value& reshaped = values[values.output(Graph::reshape, 0)];
    EXPECT_EQ(reshaped.kind, Value::Kind::output);
    EXPECT_EQ(reshaped.io_index, 0u);
    // The folded sum, the graph input and the folded shape are copied into outputs 1, 2 and 3.
    ASSERT_EQ(values.result_copies().size(), 3u);
    EXPECT_EQ(values.result_copies()[0].from, values.output(Graph::sum, 0));
    EXPECT_EQ(values.result_copies()[0].output, 1u);
    EXPECT_EQ(values.result_copies()[1].from, values.output(Graph::x, 0));
    EXPECT_EQ(values.result_copies()[1].output, 2u);
    EXPECT_EQ(values.result_copies()[2].output, 3u);
    EXPECT_EQ(values.graph_input_count(), 1u);
    EXPECT_EQ(values.graph_output_count(), 4u);
    EXPECT_EQ(values.input_name(0), "x");
    EXPECT_EQ(values.output_name(2), "out_x");
}

TEST(ValueTable, AViewSharesItsSourcesStorageWhenTheDeviceAsks) {
    Graph g;
    ValueTableOptions options;
    options.views_share_storage = true;
    const ValueTable values(g.view(), options);
    EXPECT_FALSE(values.runs(Graph::reshape));
    const ValueId view = values.output(Graph::reshape, 0);
    EXPECT_EQ(values[view].alias_of, values.output(Graph::add, 0));
    EXPECT_EQ(values.storage_of(view), values.output(Graph::add, 0));
    // The caller's output is not the source's buffer: it is copied, and the source stays an intermediate.
    EXPECT_EQ(values[values.output(Graph::add, 0)].kind, Value::Kind::intermediate);
    EXPECT_EQ(values.result_copies().front().from, view);
}

TEST(ValueTable, AViewOfAConstantIsAConstantOverTheSameBytes) {
    Graph g;
    // Reshape the constant `a` instead of the computed sum.
    g.graph.nodes[Graph::reshape].inputs[0] = {Graph::ca, 0};
    g.graph.nodes[Graph::reshape].output_shapes[0] = {3};
    const ValueTable values(g.view());
    const Value& view = values[values.output(Graph::reshape, 0)];
    EXPECT_FALSE(values.runs(Graph::reshape));
    ASSERT_TRUE(view.is_constant());
    EXPECT_EQ(view.constant, static_cast<const void*>(g.a));
}

TEST(ValueTable, WithoutFoldingEveryOpRunsAsTheOracleNeeds) {
    Graph g;
    ValueTableOptions options;
    options.fold_constants = false;
    const ValueTable values(g.view(), options);
    EXPECT_EQ(values.folded_nodes(), 0u);
    for (size_t n : {Graph::sum, Graph::add, Graph::reshape, Graph::shape_of}) EXPECT_TRUE(values.runs(n)) << n;
    EXPECT_FALSE(values[values.output(Graph::sum, 0)].is_constant());
}

TEST(ValueTable, AFoldTheKernelRefusesRunsOrNamesTheNode) {
    Graph g;
    // Concat over a rank-1 constant on axis 5: the reference kernel refuses it.
    g.graph.nodes[Graph::sum].type = "Concat";
    g.graph.nodes[Graph::sum].attrs = {{"axis", "5"}};
    {
        const ValueTable values(g.view());
        EXPECT_TRUE(values.runs(Graph::sum));  // left to the device's kernel, which names the node
        EXPECT_FALSE(values[values.output(Graph::sum, 0)].is_constant());
        EXPECT_TRUE(values.runs(Graph::add));
    }
    ValueTableOptions strict;
    strict.fold_errors_throw = true;
    try {
        const ValueTable values(g.view(), strict);
        FAIL() << "the fold should have thrown";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), MOSAIC_ERROR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(e.what()).find("node 'sum' (Concat)"), std::string::npos) << e.what();
    }
}

// A device's own fields ride on each value; values it inserts are read through rebind_input.
struct LaidOutValue : Value {
    int layout = 0;
};

class LaidOutTable : public BasicValueTable<LaidOutValue> {
public:
    using BasicValueTable::BasicValueTable;
    void set_layout(ValueId v, int layout) { value(v).layout = layout; }
};

TEST(ValueTable, ADeviceAddsItsFieldsAndInsertsValues) {
    Graph g;
    LaidOutTable values(g.view());
    values.set_layout(values.output(Graph::add, 0), 16);
    EXPECT_EQ(values[values.output(Graph::add, 0)].layout, 16);
    LaidOutValue copy;
    copy.type = ElementType::f32;
    copy.shape = {2, 3};
    const ValueId plain = values.add_value(copy);
    values.rebind_input(Graph::reshape, 0, plain);
    EXPECT_EQ(values.input(Graph::reshape, 0), plain);
    ASSERT_EQ(values[plain].uses.size(), 1u);
    EXPECT_EQ(values[plain].uses[0].node, size_t{Graph::reshape});
}

}  // namespace
}  // namespace mosaic::sdk
