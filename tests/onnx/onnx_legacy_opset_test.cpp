// Models of ONNX opsets 1 to 6, where ops meant something else than they do from opset 7: legacy
// broadcasting (broadcast / axis attributes), Gemm's broadcast, PRelu's per-channel slope,
// BatchNormalization's is_test and spatial, Dropout's is_test, attributes that later became inputs
// (Reshape's shape, Pad's paddings, Split's split, Tile's axis, Upsample's scales), Cast's type
// names, Selu's old defaults, LpPool's float p, and the no-broadcasting Sum/Max/Min/Mean. Each
// model runs on REFERENCE against values computed independently (by hand or with numpy; those that
// onnx.version_converter can carry to a newer opset were checked with ONNX Runtime too), and each
// malformed node gets an error naming it.
#include "onnx_model_test.hpp"

#include <optional>
#include <tuple>

namespace mosaic::test {
namespace {

using ::onnx::TensorProto;

// An output's values as doubles, whatever its element type, and its shape.
struct Result {
    Shape shape;
    std::vector<double> values;
};

std::vector<double> values_of(const Tensor& t) {
    std::vector<double> out;
    switch (t.get_element_type()) {
        case ElementType::f32:
            for (float v : t.to_vector<float>()) out.push_back(v);
            break;
        case ElementType::i32:
            for (int32_t v : t.to_vector<int32_t>()) out.push_back(v);
            break;
        case ElementType::i64:
            for (int64_t v : t.to_vector<int64_t>()) out.push_back(static_cast<double>(v));
            break;
        case ElementType::boolean:
            for (uint8_t v : t.to_vector<uint8_t>()) out.push_back(v);
            break;
        default: ADD_FAILURE() << "unexpected output type " << to_string(t.get_element_type());
    }
    return out;
}

void expect_values(const Result& got, const Shape& shape, const std::vector<double>& want, double tol = 1e-5) {
    EXPECT_EQ(got.shape, shape);
    ASSERT_EQ(got.values.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got.values[i], want[i], tol) << "at index " << i;
}

class OnnxLegacyOpset : public OnnxModelTest {
protected:
    // Expects reading `m` to fail with a message naming the node (`node`: "'name' (Op, opset N)")
    // and saying `what`.
    void expect_refused(const ::onnx::ModelProto& m, const std::string& node, const std::string& what) {
        const std::string e = read_error(m);
        EXPECT_NE(e.find(node), std::string::npos) << e;
        EXPECT_NE(e.find(what), std::string::npos) << e;
    }

    // Runs the model with one tensor per Parameter (in order), returning every output.
    std::vector<Result> run(const ::onnx::ModelProto& m, const std::vector<Tensor>& inputs) {
        const std::shared_ptr<Model> model = read(m);
        Core core;
        CompiledModel compiled = core.compile_model(model, "REFERENCE");
        InferRequest r = compiled.create_infer_request();
        const auto params = model->get_parameters();
        EXPECT_EQ(params.size(), inputs.size());
        for (size_t i = 0; i < params.size() && i < inputs.size(); ++i)
            r.set_tensor(Model::input_name(*params[i]), inputs[i]);
        r.infer();
        std::vector<Result> outs;
        for (size_t i = 0; i < model->get_results().size(); ++i) {
            const Tensor t = r.get_output_tensor(i);
            outs.push_back({t.get_shape(), values_of(t)});
        }
        return outs;
    }
};

Tensor f32(const Shape& shape, const std::vector<float>& v) { return Tensor::from_vector(shape, ElementType::f32, v); }

// A model of one node `op` with f32 inputs a and b of the given shapes and output y.
::onnx::ModelProto binary_model(int64_t opset, const std::string& op, const std::vector<int64_t>& a,
                                const std::vector<int64_t>& b, ::onnx::NodeProto** node,
                                int32_t type = TensorProto::FLOAT) {
    auto m = onnx_model(opset);
    add_input(m, "a", a, type);
    add_input(m, "b", b, type);
    *node = add_node(m, op, {"a", "b"}, {"y"}, "legacy_node");
    add_output(m, "y", {}, op == "Greater" || op == "Less" || op == "Equal" || type == TensorProto::BOOL
                               ? TensorProto::BOOL
                               : type);
    return m;
}

// A model of one node `op` named `name`, from f32 input x of shape `x` to output y.
::onnx::ModelProto unary_model(int64_t opset, const std::string& op, const std::vector<int64_t>& x,
                               const std::string& name, ::onnx::NodeProto** node,
                               int32_t out_type = TensorProto::FLOAT) {
    auto m = onnx_model(opset);
    add_input(m, "x", x);
    *node = add_node(m, op, {"x"}, {"y"}, name);
    add_output(m, "y", {}, out_type);
    return m;
}

// binary_model with broadcast=1 and, when given, the axis of A at which B lines up.
::onnx::ModelProto broadcast_model(int64_t opset, const std::string& op, const std::vector<int64_t>& a,
                                   const std::vector<int64_t>& b, std::optional<int64_t> axis,
                                   int32_t type = TensorProto::FLOAT) {
    ::onnx::NodeProto* n;
    auto m = binary_model(opset, op, a, b, &n, type);
    set_int(n, "broadcast", 1);
    if (axis) set_int(n, "axis", *axis);
    return m;
}

// --- legacy broadcasting ---------------------------------------------------------------------

TEST_F(OnnxLegacyOpset, AddBroadcastsTheSecondInputAlignedAtAxis) {
    // B's [3] lines up with A's axis 1, not with its last axis (numpy's choice).
    auto m = broadcast_model(6, "Add", {2, 3, 2}, {3}, 1);
    const auto y = run(m, {f32({2, 3, 2}, {0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5}), f32({3}, {10, 20, 30})});
    expect_values(y[0], {2, 3, 2}, {10, 10.5, 21, 21.5, 32, 32.5, 13, 13.5, 24, 24.5, 35, 35.5});
}

TEST_F(OnnxLegacyOpset, MulOfOpsetOneBroadcastsOnTheLastAxesByDefaultAndIgnoresConsumedInputs) {
    ::onnx::NodeProto* n;
    auto m = binary_model(1, "Mul", {2, 3}, {3}, &n);
    set_int(n, "broadcast", 1);
    set_ints(n, "consumed_inputs", {0, 0});
    const auto y = run(m, {f32({2, 3}, {0, 1, 2, 3, 4, 5}), f32({3}, {1, 2, 3})});
    expect_values(y[0], {2, 3}, {0, 2, 6, 3, 8, 15});
}

TEST_F(OnnxLegacyOpset, DivAndPowAlignAtAxisZero) {
    auto div = broadcast_model(6, "Div", {2, 3}, {2}, 0);
    expect_values(run(div, {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2}, {2, 4})})[0], {2, 3},
                  {0.5, 1, 1.5, 1, 1.25, 1.5});

    auto pow = broadcast_model(6, "Pow", {2, 3}, {2}, 0);
    expect_values(run(pow, {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2}, {2, 0.5})})[0], {2, 3},
                  {1, 4, 9, 2, 2.2360680103302, 2.4494895935058594});
}

TEST_F(OnnxLegacyOpset, SubBroadcastsAOneElementTensorWhateverTheAxis) {
    auto m = broadcast_model(6, "Sub", {2, 3}, {1, 1}, 1);
    expect_values(run(m, {f32({2, 3}, {0, 1, 2, 3, 4, 5}), f32({1, 1}, {5})})[0], {2, 3}, {-5, -4, -3, -2, -1, 0});
}

TEST_F(OnnxLegacyOpset, AddStretchesDimsOfOneInTheAlignedInput) {
    auto m = broadcast_model(6, "Add", {2, 3}, {2, 1}, 0);  // as torch exported a + b[:, None] at opset 6
    expect_values(run(m, {f32({2, 3}, {0, 1, 2, 3, 4, 5}), f32({2, 1}, {10, 20})})[0], {2, 3},
                  {10, 11, 12, 23, 24, 25});
}

TEST_F(OnnxLegacyOpset, ComparisonsAndLogicalOpsBroadcastTheLegacyWay) {
    auto greater = broadcast_model(6, "Greater", {2, 3}, {2}, 0);
    expect_values(run(greater, {f32({2, 3}, {0, 1, 2, 3, 4, 5}), f32({2}, {1, 4})})[0], {2, 3}, {0, 0, 1, 0, 0, 1});

    auto land = broadcast_model(1, "And", {2, 2}, {2}, std::nullopt, TensorProto::BOOL);
    const Tensor a = Tensor::from_vector<uint8_t>({2, 2}, ElementType::boolean, {1, 1, 0, 1});
    const Tensor b = Tensor::from_vector<uint8_t>({2}, ElementType::boolean, {1, 0});
    expect_values(run(land, {a, b})[0], {2, 2}, {1, 0, 0, 0});
}

TEST_F(OnnxLegacyOpset, EqualShapesNeedNoBroadcastAttribute) {
    ::onnx::NodeProto* n;
    auto m = binary_model(6, "Add", {2, 2}, {2, 2}, &n);
    expect_values(run(m, {f32({2, 2}, {1, 2, 3, 4}), f32({2, 2}, {10, 20, 30, 40})})[0], {2, 2}, {11, 22, 33, 44});
}

TEST_F(OnnxLegacyOpset, UnequalShapesWithoutBroadcastAreRefusedNamingTheNode) {
    ::onnx::NodeProto* n;
    auto m = binary_model(6, "Add", {2, 3}, {3}, &n);
    expect_refused(m, "'legacy_node' (Add, opset 6)",
                   "shapes [2,3] and [3], which must be equal without broadcast=1");
    expect_refused(m, "'legacy_node' (Add, opset 6)", "set broadcast=1");
}

TEST_F(OnnxLegacyOpset, IncompatibleLegacyBroadcastIsRefusedNamingTheNodeAndShapes) {
    auto m = broadcast_model(6, "Mul", {2, 3}, {2}, 1);  // [2] against A's axis 1 of length 3
    expect_refused(m, "'legacy_node' (Mul, opset 6)",
                   "input B of shape [2] cannot be broadcast to shape [2,3] from axis 1");

    auto too_far = broadcast_model(6, "Mul", {2, 3}, {3}, 2);  // B would run past A's last axis
    expect_refused(too_far, "'legacy_node' (Mul, opset 6)",
                   "input B of shape [3] cannot be broadcast to shape [2,3] from axis 2");

    auto larger = broadcast_model(6, "Sub", {2, 1}, {2, 3}, std::nullopt);  // B may not grow A
    expect_refused(larger, "'legacy_node' (Sub, opset 6)",
                   "input B of shape [2,3] cannot be broadcast to shape [2,1]");
}

TEST_F(OnnxLegacyOpset, AnAxisAttributeFromOpsetSevenOnIsRefused) {
    ::onnx::NodeProto* n;
    auto m = binary_model(7, "Add", {2, 3}, {2}, &n);
    set_int(n, "axis", 0);
    expect_refused(m, "'legacy_node' (Add, opset 7)", "attribute 'axis'");
}

// --- Sum, Max, Min, Mean before opset 8 -----------------------------------------------------------

TEST_F(OnnxLegacyOpset, VariadicOpsTakeInputsOfOneShapeBeforeOpsetEight) {
    auto sum = onnx_model(6);
    for (const char* name : {"a", "b", "c"}) add_input(sum, name, {2});
    add_node(sum, "Sum", {"a", "b", "c"}, {"y"}, "sum");
    add_output(sum, "y", {2});
    expect_values(run(sum, {f32({2}, {1, 2}), f32({2}, {3, 4}), f32({2}, {5, 6})})[0], {2}, {9, 12});

    auto mean = onnx_model(1);
    add_input(mean, "a", {2});
    add_input(mean, "b", {2});
    set_ints(add_node(mean, "Mean", {"a", "b"}, {"y"}, "mean"), "consumed_inputs", {0, 0});
    add_output(mean, "y", {2});
    expect_values(run(mean, {f32({2}, {1, 2}), f32({2}, {3, 6})})[0], {2}, {2, 4});

    for (int64_t opset : {6, 7}) {
        auto max = onnx_model(opset);
        add_input(max, "a", {2, 3});
        add_input(max, "b", {3});
        add_node(max, "Max", {"a", "b"}, {"y"}, "max");
        add_output(max, "y", {2, 3});
        expect_refused(max, "'max' (Max, opset " + std::to_string(opset) + ")", "must be equal before opset 8");
    }
}

// --- Gemm and PRelu ---------------------------------------------------------------------------

::onnx::ModelProto gemm_model(int64_t opset, const std::vector<int64_t>& b, const std::vector<int64_t>& c,
                              ::onnx::NodeProto** node) {
    auto m = onnx_model(opset);
    add_input(m, "a", {2, 2});
    add_input(m, "b", b);
    add_input(m, "c", c);
    *node = add_node(m, "Gemm", {"a", "b", "c"}, {"y"}, "gemm");
    add_output(m, "y", {2, 3});
    return m;
}

TEST_F(OnnxLegacyOpset, GemmBroadcastsCOnlyWhenAsked) {
    ::onnx::NodeProto* n;
    auto m = gemm_model(6, {2, 3}, {3}, &n);
    set_int(n, "broadcast", 1);
    set_float(n, "alpha", 2);
    set_float(n, "beta", 0.5);
    const Tensor a = f32({2, 2}, {1, 2, 3, 4}), b = f32({2, 3}, {1, 0, 1, 0, 1, 1});
    expect_values(run(m, {a, b, f32({3}, {1, 2, 3})})[0], {2, 3}, {2.5, 5, 7.5, 6.5, 9, 15.5});

    auto full = gemm_model(1, {3, 2}, {2, 3}, &n);  // Gemm-1, C of Y's shape, B transposed
    set_int(n, "transB", 1);
    expect_values(run(full, {a, f32({3, 2}, {1, 0, 0, 1, 1, 1}), f32({2, 3}, {1, 1, 1, 2, 2, 2})})[0], {2, 3},
                  {2, 3, 4, 5, 6, 9});

    auto refused = gemm_model(6, {2, 3}, {3}, &n);  // no broadcast: C must be [2, 3]
    expect_refused(refused, "'gemm' (Gemm, opset 6)", "set broadcast=1");
}

TEST_F(OnnxLegacyOpset, PReluSlopeIsPerChannelBeforeOpsetSeven) {
    auto m = onnx_model(6);
    add_input(m, "x", {1, 2, 2, 2});
    add_input(m, "slope", {2});
    add_node(m, "PRelu", {"x", "slope"}, {"y"}, "prelu");
    add_output(m, "y", {1, 2, 2, 2});
    // Channel 0 holds -4..-1 (slope 0.1), channel 1 holds 0..3 (slope 0.2).
    expect_values(run(m, {f32({1, 2, 2, 2}, {-4, -3, -2, -1, 0, 1, 2, 3}), f32({2}, {0.1f, 0.2f})})[0],
                  {1, 2, 2, 2}, {-0.4, -0.3, -0.2, -0.1, 0, 1, 2, 3});
    auto c2 = onnx_model(6);
    add_input(c2, "x", {1, 2, 2});
    add_input(c2, "slope", {2});
    add_node(c2, "PRelu", {"x", "slope"}, {"y"}, "prelu");
    add_output(c2, "y", {1, 2, 2});
    expect_values(run(c2, {f32({1, 2, 2}, {-1, -2, -3, 4}), f32({2}, {0.5f, 2})})[0], {1, 2, 2}, {-0.5, -1, -6, 4});

    auto shared = onnx_model(1);
    add_input(shared, "x", {2, 3});
    add_input(shared, "slope", {1});
    set_ints(add_node(shared, "PRelu", {"x", "slope"}, {"y"}, "prelu"), "consumed_inputs", {0});
    add_output(shared, "y", {2, 3});
    expect_values(run(shared, {f32({2, 3}, {-2, -1, 0, 1, 2, -4}), f32({1}, {0.5f})})[0], {2, 3},
                  {-1, -0.5, 0, 1, 2, -2});

    auto wrong = onnx_model(6);
    add_input(wrong, "x", {1, 3, 2});
    add_input(wrong, "slope", {2});
    add_node(wrong, "PRelu", {"x", "slope"}, {"y"}, "prelu");
    add_output(wrong, "y", {1, 3, 2});
    expect_refused(wrong, "'prelu' (PRelu, opset 6)", "input slope of shape [2]");
}

// --- BatchNormalization and Dropout -------------------------------------------------------------

::onnx::ModelProto batch_norm_model(int64_t opset, const std::vector<int64_t>& x, const std::vector<int64_t>& params,
                                    ::onnx::NodeProto** node, bool running_outputs = false) {
    auto m = onnx_model(opset);
    add_input(m, "x", x);
    for (const char* name : {"scale", "bias", "mean", "var"}) add_input(m, name, params);
    std::vector<std::string> outs{"y"};
    if (running_outputs) outs.insert(outs.end(), {"running_mean", "running_var"});
    *node = add_node(m, "BatchNormalization", {"x", "scale", "bias", "mean", "var"}, outs, "bn");
    for (const auto& o : outs) add_output(m, o, {});
    return m;
}

TEST_F(OnnxLegacyOpset, BatchNormInTestModeUsesTheGivenStatistics) {
    ::onnx::NodeProto* n;
    auto m = batch_norm_model(6, {1, 2, 1, 2}, {2}, &n);
    set_int(n, "is_test", 1);
    set_float(n, "epsilon", 0);
    const auto y = run(m, {f32({1, 2, 1, 2}, {1, 3, 2, 6}), f32({2}, {1, 2}), f32({2}, {0, 1}), f32({2}, {1, 2}),
                           f32({2}, {4, 1})});
    expect_values(y[0], {1, 2, 1, 2}, {0, 1, 1, 9});

    auto v1 = batch_norm_model(1, {2, 2}, {2}, &n);  // BatchNormalization-1: consumed_inputs is required and ignored
    set_int(n, "is_test", 1);
    set_float(n, "epsilon", 0);
    set_ints(n, "consumed_inputs", {0, 0, 0, 1, 1});
    expect_values(run(v1, {f32({2, 2}, {1, 2, 3, 4}), f32({2}, {1, 1}), f32({2}, {0, 0}), f32({2}, {1, 2}),
                           f32({2}, {1, 4})})[0],
                  {2, 2}, {0, 0, 2, 1});
}

TEST_F(OnnxLegacyOpset, BatchNormWithoutIsTestTrainsOnTheBatchStatistics) {
    ::onnx::NodeProto* n;
    auto m = batch_norm_model(6, {2, 2, 1, 1}, {2}, &n, true);  // is_test defaults to 0: training mode
    set_float(n, "momentum", 0.5);
    // Channel 0 holds 1 and 3 (mean 2, variance 1), channel 1 holds 2 and 6 (mean 4, variance 4).
    const auto y = run(m, {f32({2, 2, 1, 1}, {1, 2, 3, 6}), f32({2}, {1, 2}), f32({2}, {0, 1}), f32({2}, {1, 2}),
                           f32({2}, {4, 1})});
    ASSERT_EQ(y.size(), 3u);
    expect_values(y[0], {2, 2, 1, 1}, {-0.999995, -0.9999976, 0.999995, 2.9999976});
    expect_values(y[1], {2}, {1.5, 3});    // 0.5 * running + 0.5 * batch
    expect_values(y[2], {2}, {2.5, 2.5});
}

TEST_F(OnnxLegacyOpset, BatchNormSpatialZeroNormalisesEachActivation) {
    ::onnx::NodeProto* n;
    auto m = batch_norm_model(6, {2, 2, 2}, {2, 2}, &n);
    set_int(n, "is_test", 1);
    set_int(n, "spatial", 0);
    set_float(n, "epsilon", 0);
    const auto y = run(m, {f32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), f32({2, 2}, {1, 2, 3, 4}),
                           f32({2, 2}, {0, 0, 1, 1}), f32({2, 2}, {1, 1, 2, 2}), f32({2, 2}, {1, 4, 4, 16})});
    expect_values(y[0], {2, 2, 2}, {0, 1, 2.5, 3, 4, 5, 8.5, 7});

    auto wrong = batch_norm_model(6, {2, 2, 2}, {2, 3}, &n);
    set_int(n, "is_test", 1);
    set_int(n, "spatial", 0);
    expect_refused(wrong, "'bn' (BatchNormalization, opset 6)", "input scale of shape [2,3]");
}

TEST_F(OnnxLegacyOpset, DropoutIsTheIdentityInTestModeAndRefusedInTrainingMode) {
    ::onnx::NodeProto* n;
    auto m = unary_model(6, "Dropout", {3}, "drop", &n);
    set_int(n, "is_test", 1);
    expect_values(run(m, {f32({3}, {1, -2, 3})})[0], {3}, {1, -2, 3});

    auto no_drop = unary_model(1, "Dropout", {3}, "drop", &n);  // training mode, but nothing is dropped
    set_float(n, "ratio", 0);
    expect_values(run(no_drop, {f32({3}, {1, -2, 3})})[0], {3}, {1, -2, 3});

    const auto training = unary_model(6, "Dropout", {3}, "drop", &n);  // is_test defaults to 0
    expect_refused(training, "'drop' (Dropout, opset 6)", "set is_test=1");
}

// --- attributes that became inputs --------------------------------------------------------------

TEST_F(OnnxLegacyOpset, ReshapeOneTakesItsShapeAsAnAttribute) {
    ::onnx::NodeProto* n;
    auto m = unary_model(4, "Reshape", {2, 3, 2}, "reshape", &n);
    set_ints(n, "shape", {0, -1});  // 0 copies the input's dim
    expect_values(run(m, {f32({2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})})[0], {2, 6},
                  {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});

    expect_refused(unary_model(1, "Reshape", {2}, "reshape", &n), "'reshape' (Reshape, opset 1)", "attribute 'shape'");
}

TEST_F(OnnxLegacyOpset, PadOneTakesPaddingsAndPadTwoPads) {
    ::onnx::NodeProto* n;
    auto m = unary_model(1, "Pad", {2, 2}, "pad", &n);
    set_ints(n, "paddings", {0, 1, 0, 2});  // [begin of each axis..., end of each axis...]
    set_float(n, "value", 7);
    expect_values(run(m, {f32({2, 2}, {1, 2, 3, 4})})[0], {2, 5}, {7, 1, 2, 7, 7, 7, 3, 4, 7, 7});

    auto edge = unary_model(2, "Pad", {1, 2}, "pad", &n);
    set_ints(n, "pads", {0, 1, 0, 1});
    set_string(n, "mode", "edge");
    expect_values(run(edge, {f32({1, 2}, {5, 6})})[0], {1, 4}, {5, 5, 6, 6});
}

TEST_F(OnnxLegacyOpset, SplitOneTakesItsSizesFromAnInputOrTheAttribute) {
    auto m = onnx_model(1);
    add_input(m, "x", {5});
    add_initializer(m, "sizes", {2}, {2, 3});  // Split-1's sizes input has the data's (float) type
    add_node(m, "Split", {"x", "sizes"}, {"p", "q"}, "split");
    add_output(m, "p", {2});
    add_output(m, "q", {3});
    const auto y = run(m, {f32({5}, {1, 2, 3, 4, 5})});
    expect_values(y[0], {2}, {1, 2});
    expect_values(y[1], {3}, {3, 4, 5});

    auto attr = onnx_model(1);
    add_input(attr, "x", {2, 4});
    auto* n = add_node(attr, "Split", {"x"}, {"p", "q"}, "split");
    set_int(n, "axis", 1);
    set_ints(n, "split", {1, 3});
    add_output(attr, "p", {2, 1});
    add_output(attr, "q", {2, 3});
    const auto z = run(attr, {f32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})});
    expect_values(z[0], {2, 1}, {1, 5});
    expect_values(z[1], {2, 3}, {2, 3, 4, 6, 7, 8});

    auto both = onnx_model(1);
    add_input(both, "x", {5});
    add_initializer(both, "sizes", {2}, {2, 3});
    set_ints(add_node(both, "Split", {"x", "sizes"}, {"p", "q"}, "split"), "split", {2, 3});
    add_output(both, "p", {2});
    add_output(both, "q", {3});
    expect_refused(both, "'split' (Split, opset 1)", "give one");
}

TEST_F(OnnxLegacyOpset, SplitTwoSplitsEquallyOnAxisZeroByDefault) {
    auto m = onnx_model(2);
    add_input(m, "x", {4, 1});
    add_node(m, "Split", {"x"}, {"p", "q"}, "split");
    add_output(m, "p", {2, 1});
    add_output(m, "q", {2, 1});
    const auto y = run(m, {f32({4, 1}, {1, 2, 3, 4})});
    expect_values(y[0], {2, 1}, {1, 2});
    expect_values(y[1], {2, 1}, {3, 4});
}

TEST_F(OnnxLegacyOpset, ConcatOneJoinsOnAxisOneByDefault) {
    auto m = onnx_model(3);
    add_input(m, "a", {1, 2});
    add_input(m, "b", {1, 1});
    add_node(m, "Concat", {"a", "b"}, {"y"}, "concat");
    add_output(m, "y", {1, 3});
    expect_values(run(m, {f32({1, 2}, {1, 2}), f32({1, 1}, {3})})[0], {1, 3}, {1, 2, 3});

    auto four = onnx_model(4);  // Concat-4 makes the axis required
    add_input(four, "a", {1, 2});
    add_input(four, "b", {1, 1});
    add_node(four, "Concat", {"a", "b"}, {"y"}, "concat");
    add_output(four, "y", {1, 3});
    EXPECT_NE(read_error(four).find("attribute 'axis'"), std::string::npos);
}

// A one-value int64 initializer.
void add_i64_initializer(::onnx::ModelProto& m, const std::string& name, int64_t value) {
    auto* t = m.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(TensorProto::INT64);
    t->add_dims(1);
    t->add_int64_data(value);
}

TEST_F(OnnxLegacyOpset, TileOneRepeatsAlongOneAxis) {
    auto m = onnx_model(5);
    add_input(m, "x", {2, 2});
    add_i64_initializer(m, "tiles", 3);
    add_i64_initializer(m, "axis", 1);
    add_node(m, "Tile", {"x", "tiles", "axis"}, {"y"}, "tile");
    add_output(m, "y", {2, 6});
    expect_values(run(m, {f32({2, 2}, {1, 2, 3, 4})})[0], {2, 6}, {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4});

    auto negative = onnx_model(1);  // the axis counts from the end when negative
    add_input(negative, "x", {2, 1});
    add_initializer(negative, "tiles", {1}, {2});  // the opset-1 schema types them as the data
    add_initializer(negative, "axis", {1}, {-2});
    add_node(negative, "Tile", {"x", "tiles", "axis"}, {"y"}, "tile");
    add_output(negative, "y", {4, 1});
    expect_values(run(negative, {f32({2, 1}, {1, 2})})[0], {4, 1}, {1, 2, 1, 2});

    auto dynamic = onnx_model(5);
    add_input(dynamic, "x", {2, 2});
    add_input(dynamic, "tiles", {1}, TensorProto::INT64);
    add_i64_initializer(dynamic, "axis", 1);
    add_node(dynamic, "Tile", {"x", "tiles", "axis"}, {"y"}, "tile");
    add_output(dynamic, "y", {2, 6});
    expect_refused(dynamic, "'tile' (Tile, opset 5)", "(tiles) must be known when the model is read");
}

TEST_F(OnnxLegacyOpset, UpsampleOneTakesHeightAndWidthScales) {
    ::onnx::NodeProto* n;
    auto m = unary_model(6, "Upsample", {1, 1, 2, 2}, "up", &n);
    set_float(n, "height_scale", 2);
    set_float(n, "width_scale", 3);
    expect_values(run(m, {f32({1, 1, 2, 2}, {1, 2, 3, 4})})[0], {1, 1, 4, 6},
                  {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});

    auto missing = unary_model(6, "Upsample", {1, 1, 2, 2}, "up", &n);
    set_float(n, "height_scale", 2);
    expect_refused(missing, "'up' (Upsample, opset 6)", "'width_scale'");
}

// --- other attribute forms ------------------------------------------------------------------

TEST_F(OnnxLegacyOpset, CastOneNamesTheTargetType) {
    ::onnx::NodeProto* n;
    auto m = unary_model(5, "Cast", {3}, "cast", &n, TensorProto::INT32);
    set_string(n, "to", "INT32");
    expect_values(run(m, {f32({3}, {1.7f, -2.5f, 3.2f})})[0], {3}, {1, -2, 3});  // truncated toward zero

    auto bad = unary_model(5, "Cast", {3}, "cast", &n);
    set_string(n, "to", "FLOATY");
    expect_refused(bad, "'cast' (Cast, opset 5)", "'FLOATY'");
}

TEST_F(OnnxLegacyOpset, ClipTakesItsBoundsAsAttributes) {
    ::onnx::NodeProto* n;
    auto m = unary_model(6, "Clip", {3}, "clip", &n);
    set_float(n, "min", -1);
    set_float(n, "max", 2);
    expect_values(run(m, {f32({3}, {-3, 0.5f, 4})})[0], {3}, {-1, 0.5, 2});

    auto upper = unary_model(1, "Clip", {3}, "clip", &n);  // Clip-1: only a max, and consumed_inputs
    set_float(n, "max", 1);
    set_ints(n, "consumed_inputs", {0});
    expect_values(run(upper, {f32({3}, {-3, 0.5f, 4})})[0], {3}, {-3, 0.5, 1});
}

TEST_F(OnnxLegacyOpset, SeluOneHasItsOwnDefaults) {
    // Selu-1's defaults are 1.6732 and 1.0507; Selu-6's the float32 values of the paper's constants.
    for (const auto& [opset, negative, positive] :
         std::vector<std::tuple<int64_t, double, double>>{{1, -1.1112877130508423, 1.0506999492645264},
                                                          {6, -1.1113307476043701, 1.0507010221481323}}) {
        ::onnx::NodeProto* n;
        const auto m = unary_model(opset, "Selu", {2}, "selu", &n);
        expect_values(run(m, {f32({2}, {-1, 1})})[0], {2}, {negative, positive}, 5e-7);
    }
}

TEST_F(OnnxLegacyOpset, ActivationsOfOpsetOneIgnoreConsumedInputs) {
    auto m = onnx_model(1);
    add_input(m, "x", {3});
    set_ints(add_node(m, "Relu", {"x"}, {"r"}, "relu"), "consumed_inputs", {0});
    auto* leaky = add_node(m, "LeakyRelu", {"r"}, {"l"}, "leaky");
    set_ints(leaky, "consumed_inputs", {0});
    auto* elu = add_node(m, "Elu", {"x"}, {"e"}, "elu");
    set_float(elu, "alpha", 2);
    set_ints(elu, "consumed_inputs", {0});
    add_output(m, "l", {3});
    add_output(m, "e", {3});
    const auto y = run(m, {f32({3}, {-1, 0, 2})});
    expect_values(y[0], {3}, {0, 0, 2});
    expect_values(y[1], {3}, {2 * (0.36787944117144233 - 1), 0, 2});
}

TEST_F(OnnxLegacyOpset, LpPoolOneTakesAFloatP) {
    auto m = onnx_model(1);
    add_input(m, "x", {1, 1, 3});
    auto* n = add_node(m, "LpPool", {"x"}, {"y"}, "lp");
    set_float(n, "p", 3);
    set_ints(n, "kernel_shape", {2});
    set_float(add_node(m, "GlobalLpPool", {"x"}, {"g"}, "glp"), "p", 3);
    add_output(m, "y", {1, 1, 2});
    add_output(m, "g", {1, 1, 1});
    const auto y = run(m, {f32({1, 1, 3}, {1, -2, 3})});
    expect_values(y[0], {1, 1, 2}, {2.0800838470458984, 3.271066427230835});  // cube roots of 9 and 35
    expect_values(y[1], {1, 1, 1}, {3.301927328109741});                     // cube root of 36
}

TEST_F(OnnxLegacyOpset, ShapeOpsOfOpsetOneKeepTheirAttributeForms) {
    auto m = onnx_model(1);
    add_input(m, "x", {1, 2, 3});
    auto* slice = add_node(m, "Slice", {"x"}, {"s"}, "slice");
    set_ints(slice, "axes", {2});
    set_ints(slice, "starts", {1});
    set_ints(slice, "ends", {3});
    set_ints(add_node(m, "Squeeze", {"s"}, {"q"}, "squeeze"), "axes", {0});
    set_ints(add_node(m, "Unsqueeze", {"q"}, {"u"}, "unsqueeze"), "axes", {2});
    add_node(m, "Flatten", {"u"}, {"y"}, "flatten");
    add_output(m, "y", {2, 2});
    expect_values(run(m, {f32({1, 2, 3}, {0, 1, 2, 3, 4, 5})})[0], {2, 2}, {1, 2, 4, 5});
}

TEST_F(OnnxLegacyOpset, ModelsWithoutOpsetImportAreOpsetOne) {
    // IR versions 1 and 2 had no opset_import; their models are of opset 1 (legacy broadcasting here).
    auto m = onnx_model(1);
    m.set_ir_version(2);
    m.clear_opset_import();
    add_input(m, "a", {2, 3});
    add_input(m, "b", {2});
    auto* n = add_node(m, "Add", {"a", "b"}, {"y"}, "add");
    set_int(n, "broadcast", 1);
    set_int(n, "axis", 0);
    add_output(m, "y", {2, 3});
    expect_values(run(m, {f32({2, 3}, {0, 1, 2, 3, 4, 5}), f32({2}, {10, 20})})[0], {2, 3}, {10, 11, 12, 23, 24, 25});

    m.set_ir_version(3);  // from IR 3 on the opset must be listed
    EXPECT_NE(read_error(m).find("imports no opset"), std::string::npos);
}

}  // namespace
}  // namespace mosaic::test
