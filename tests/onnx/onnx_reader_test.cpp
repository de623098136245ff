// The ONNX reader: initializers (raw, typed, external), Constant nodes, inputs that are also
// initializers, metadata, content-based format detection, dynamic dimensions, bound inputs, and a
// clear error for each kind of bad model.
#include "onnx_model_builder.hpp"

#include <mosaic/mosaic.hpp>
#include <mosaic/onnx.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>

#include <filesystem>
#include <fstream>

namespace mosaic::test {
namespace {

namespace fs = std::filesystem;
using ::onnx::TensorProto;

class OnnxReader : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("mosaic_onnx_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
                std::to_string(::getpid()));
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    // y = x + w, w an initializer: the smallest model with a weight.
    ::onnx::ModelProto add_model(bool typed = false) {
        auto m = onnx_model();
        add_input(m, "x", {2, 2});
        add_initializer(m, "w", {2, 2}, {1, 2, 3, 4}, typed);
        add_node(m, "Add", {"x", "w"}, {"y"}, "add");
        add_output(m, "y", {2, 2});
        return m;
    }

    std::vector<float> run(const std::shared_ptr<Model>& model, const std::vector<float>& x) {
        Core core;
        CompiledModel compiled = core.compile_model(model, "REFERENCE");
        InferRequest r = compiled.create_infer_request();
        r.set_tensor(Model::input_name(*model->get_parameters().at(0)),
                     Tensor::from_vector(model->get_parameters().at(0)->output_shape(0), ElementType::f32, x));
        r.infer();
        return r.get_output_tensor(0).to_vector<float>();
    }

    std::string read_error(const std::string& file) {
        try {
            onnx::read_onnx(file);
        } catch (const ModelError& e) {
            return e.what();
        }
        return "no error";
    }

    // m.onnx with initializer 'w' moved to external data described by `entries`; the read error.
    std::string external_data_error(const std::vector<std::pair<std::string, std::string>>& entries) {
        auto m = add_model();
        auto* w = m.mutable_graph()->mutable_initializer(0);
        w->clear_raw_data();
        w->set_data_location(TensorProto::EXTERNAL);
        for (const auto& [k, v] : entries) {
            auto* e = w->add_external_data();
            e->set_key(k);
            e->set_value(v);
        }
        save(m, path("m.onnx"));
        return read_error(path("m.onnx"));
    }

    fs::path dir_;
};

TEST_F(OnnxReader, RawAndTypedInitializersGiveTheSameModel) {
    for (bool typed : {false, true}) {
        save(add_model(typed), path("m.onnx"));
        auto model = onnx::read_onnx(path("m.onnx"));
        EXPECT_EQ(run(model, {10, 20, 30, 40}), (std::vector<float>{11, 22, 33, 44})) << "typed=" << typed;
        EXPECT_EQ(Model::output_name(*model->get_results().at(0)), "y");
        EXPECT_NE(model->find_node("add"), nullptr) << "ONNX node names become friendly names";
    }
}

TEST_F(OnnxReader, CoreReadModelTellsOnnxByContentNotSuffix) {
    save(add_model(), path("weights.bin"));
    Core core;
    auto model = core.read_model(path("weights.bin"));
    EXPECT_EQ(run(model, {0, 0, 0, 0}), (std::vector<float>{1, 2, 3, 4}));
}

// A '<' or "<?xml" inside a binary model (here in its producer's name, within its first 16
// bytes) does not make it XML: only a file that starts with '<' is.
TEST_F(OnnxReader, AnAngleBracketInsideTheBytesIsNoXml) {
    auto m = add_model();
    m.set_producer_name("<?xml exporter");
    for (const std::string name : {"m.onnx", "m.bin"}) {
        SCOPED_TRACE(name);
        save(m, path(name));
        EXPECT_TRUE(onnx::is_onnx_file(path(name)));
        Core core;
        EXPECT_EQ(run(core.read_model(path(name)), {0, 0, 0, 0}), (std::vector<float>{1, 2, 3, 4}));
    }
    std::ofstream(path("x.onnx")) << "  <?xml version=\"1.0\"?><net/>";
    EXPECT_FALSE(onnx::is_onnx_file(path("x.onnx")));
}

TEST_F(OnnxReader, MetadataGoesToRtInfo) {
    auto m = add_model();
    m.set_producer_version("1.2");
    m.set_model_version(7);
    m.set_doc_string("a test model");
    auto* p = m.add_metadata_props();
    p->set_key("author");
    p->set_value("mosaic");
    save(m, path("m.onnx"));
    auto info = onnx::read_onnx(path("m.onnx"))->get_rt_info();
    EXPECT_EQ(info["onnx.producer_name"], "mosaic-tests");
    EXPECT_EQ(info["onnx.producer_version"], "1.2");
    EXPECT_EQ(info["onnx.model_version"], "7");
    EXPECT_EQ(info["onnx.doc_string"], "a test model");
    EXPECT_EQ(info["onnx.metadata.author"], "mosaic");
    EXPECT_EQ(info["onnx.opset"], "13");
}

TEST_F(OnnxReader, GraphInputThatIsAlsoAnInitializerIsAConstant) {
    auto m = add_model();
    add_input(m, "w", {2, 2});  // IR < 4 style: initializers listed as inputs too
    save(m, path("m.onnx"));
    auto model = onnx::read_onnx(path("m.onnx"));
    ASSERT_EQ(model->get_parameters().size(), 1u);
    EXPECT_EQ(Model::input_name(*model->get_parameters()[0]), "x");
}

TEST_F(OnnxReader, ConstantNodesOfEveryAttributeForm) {
    auto m = onnx_model();
    add_input(m, "x", {3});
    auto* c = add_node(m, "Constant", {}, {"c"}, "c");
    auto* attr = c->add_attribute();
    attr->set_name("value_floats");
    attr->set_type(::onnx::AttributeProto::FLOATS);
    for (float v : {0.5f, 1.5f, 2.5f}) attr->add_floats(v);
    add_node(m, "Add", {"x", "c"}, {"y"});
    add_output(m, "y", {3});
    save(m, path("m.onnx"));
    EXPECT_EQ(run(onnx::read_onnx(path("m.onnx")), {1, 1, 1}), (std::vector<float>{1.5f, 2.5f, 3.5f}));
}

TEST_F(OnnxReader, ExternalDataIsReadFromBesideTheModel) {
    auto m = add_model();
    auto* w = m.mutable_graph()->mutable_initializer(0);
    const std::string bytes = w->raw_data();
    w->clear_raw_data();
    w->set_data_location(TensorProto::EXTERNAL);
    auto add_entry = [&](const char* k, const std::string& v) {
        auto* e = w->add_external_data();
        e->set_key(k);
        e->set_value(v);
    };
    add_entry("location", "weights.data");
    add_entry("offset", "8");
    add_entry("length", std::to_string(bytes.size()));
    std::ofstream(path("weights.data"), std::ios::binary) << std::string(8, 'x') << bytes;
    save(m, path("m.onnx"));
    EXPECT_EQ(run(onnx::read_onnx(path("m.onnx")), {0, 0, 0, 0}), (std::vector<float>{1, 2, 3, 4}));

    fs::remove(path("weights.data"));
    const std::string e = read_error(path("m.onnx"));
    EXPECT_NE(e.find("initializer 'w'"), std::string::npos) << e;
    EXPECT_NE(e.find("weights.data"), std::string::npos) << e;
    EXPECT_NE(e.find("cannot be opened"), std::string::npos) << e;
}

// As ONNX Runtime: external data may not name files outside the model's folder, however spelt.
TEST_F(OnnxReader, ExternalDataOutsideTheModelFolderIsRefused) {
    for (const std::string location : {"../../etc/passwd", "/etc/passwd", "sub/../../weights.data", "./../w.data"}) {
        const std::string e = external_data_error({{"location", location}});
        EXPECT_NE(e.find("initializer 'w'"), std::string::npos) << e;
        EXPECT_NE(e.find("external data location '" + location +
                         "' must be a relative path inside the model's folder (no absolute path, no '..')"),
                  std::string::npos)
            << e;
    }
    // A symbolic link inside the folder that leads out of it.
    fs::create_directory_symlink("/etc", path("etc_link"));
    const std::string e = external_data_error({{"location", "etc_link/passwd"}});
    EXPECT_NE(e.find("resolves to '/etc/passwd', outside the model's folder"), std::string::npos) << e;
}

TEST_F(OnnxReader, ExternalDataOffsetsMustBeNonNegativeIntegers) {
    std::ofstream(path("weights.data"), std::ios::binary) << std::string(16, 'x');
    EXPECT_NE(external_data_error({{"location", "weights.data"}, {"offset", "abc"}})
                  .find("external data 'offset' is 'abc', not a non-negative integer"),
              std::string::npos);
    EXPECT_NE(external_data_error({{"location", "weights.data"}, {"length", "-4"}})
                  .find("external data 'length' is '-4', not a non-negative integer"),
              std::string::npos);
    const std::string e = external_data_error({{"location", "weights.data"}, {"offset", "8"}, {"length", "64"}});
    EXPECT_NE(e.find("external data [8, 72) lies outside"), std::string::npos) << e;
}

TEST_F(OnnxReader, DynamicDimensionsStayDynamicUntilReshaped) {
    auto m = onnx_model();
    add_input(m, "x", {-1, 2});
    add_node(m, "Relu", {"x"}, {"y"}, "relu");
    add_output(m, "y", {-1, 2});
    save(m, path("m.onnx"));
    auto model = onnx::read_onnx(path("m.onnx"));
    EXPECT_EQ(model->get_parameters()[0]->output_shape(0), (Shape{kDynamicDim, 2}));
    model->reshape({{"x", {3, 2}}});
    EXPECT_EQ(run(model, {-1, 1, -2, 2, -3, 3}), (std::vector<float>{0, 1, 0, 2, 0, 3}));

    onnx::ReadOptions to_one;
    to_one.dynamic_dims_to_one = true;
    auto defaulted = onnx::read_onnx(path("m.onnx"), to_one);
    EXPECT_EQ(defaulted->get_parameters()[0]->output_shape(0), (Shape{1, 2}));
    EXPECT_EQ(defaulted->get_rt_info()["onnx.dynamic_inputs_set_to_one"], "x [?,2]");

    onnx::ReadOptions shaped;
    shaped.input_shapes["x"] = {4, 2};
    EXPECT_EQ(onnx::read_onnx(path("m.onnx"), shaped)->get_parameters()[0]->output_shape(0), (Shape{4, 2}));
}

TEST_F(OnnxReader, BoundInputsBecomeConstants) {
    save(add_model(), path("m.onnx"));
    onnx::ReadOptions options;
    options.input_values["x"] = Tensor::from_vector<float>({2, 2}, ElementType::f32, {1, 1, 1, 1});
    auto model = onnx::read_onnx(path("m.onnx"), options);
    EXPECT_TRUE(model->get_parameters().empty());
    options.input_values["nope"] = Tensor(ElementType::f32, {1});
    EXPECT_THROW(onnx::read_onnx(path("m.onnx"), options), ModelError);
}

// --- bad input ------------------------------------------------------------------------------

TEST_F(OnnxReader, TruncatedProtobufIsNamedAsSuch) {
    std::string bytes;
    add_model().SerializeToString(&bytes);
    std::ofstream(path("m.onnx"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    const std::string e = read_error(path("m.onnx"));
    EXPECT_NE(e.find(path("m.onnx")), std::string::npos) << e;
    EXPECT_NE(e.find("truncated or corrupt"), std::string::npos) << e;
}

TEST_F(OnnxReader, GarbageWithOnnxSuffixIsNotAModel) {
    std::ofstream(path("m.onnx"), std::ios::binary) << "\x08\xff\xff\xff garbage";
    EXPECT_NE(read_error(path("m.onnx")).find("truncated or corrupt"), std::string::npos);
}

TEST_F(OnnxReader, UnknownDomainNamesNodeAndDomain) {
    auto m = add_model();
    auto* n = add_node(m, "FancyOp", {"y"}, {"z"}, "fancy");
    n->set_domain("com.example");
    m.mutable_graph()->mutable_output(0)->set_name("z");
    save(m, path("m.onnx"));
    try {
        onnx::read_onnx(path("m.onnx"));
        FAIL() << "no error";
    } catch (const onnx::UnsupportedError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("'fancy'"), std::string::npos) << what;
        EXPECT_NE(what.find("com.example"), std::string::npos) << what;
    }
}

TEST_F(OnnxReader, UnsupportedOpNamesOpTypeAndOpset) {
    auto m = add_model();
    add_node(m, "NoSuchOp", {"y"}, {"z"}, "mystery");
    m.mutable_graph()->mutable_output(0)->set_name("z");
    save(m, path("m.onnx"));
    const std::string e = read_error(path("m.onnx"));
    EXPECT_NE(e.find("'mystery' (NoSuchOp, opset 13)"), std::string::npos) << e;
    EXPECT_NE(e.find("not supported"), std::string::npos) << e;
}

TEST_F(OnnxReader, InitializerSizeContradictingItsShape) {
    auto m = add_model();
    m.mutable_graph()->mutable_initializer(0)->set_raw_data(std::string(12, '\0'));
    save(m, path("m.onnx"));
    const std::string e = read_error(path("m.onnx"));
    EXPECT_NE(e.find("initializer 'w'"), std::string::npos) << e;
    EXPECT_NE(e.find("holds 12 bytes"), std::string::npos) << e;
    EXPECT_NE(e.find("needs 16"), std::string::npos) << e;
}

TEST_F(OnnxReader, CycleNamesTheNodesInIt) {
    auto m = onnx_model();
    add_input(m, "x", {2});
    add_node(m, "Add", {"x", "b"}, {"a"}, "first");
    add_node(m, "Relu", {"a"}, {"b"}, "second");
    add_output(m, "b", {2});
    save(m, path("m.onnx"));
    const std::string e = read_error(path("m.onnx"));
    EXPECT_NE(e.find("cycle"), std::string::npos) << e;
    EXPECT_NE(e.find("first"), std::string::npos) << e;
    EXPECT_NE(e.find("second"), std::string::npos) << e;
}

TEST_F(OnnxReader, UndefinedInputNamesNodeAndTensor) {
    auto m = onnx_model();
    add_input(m, "x", {2});
    add_node(m, "Add", {"x", "ghost"}, {"y"}, "adder");
    add_output(m, "y", {2});
    save(m, path("m.onnx"));
    const std::string e = read_error(path("m.onnx"));
    EXPECT_NE(e.find("'adder'"), std::string::npos) << e;
    EXPECT_NE(e.find("'ghost'"), std::string::npos) << e;
}

TEST_F(OnnxReader, NodesOutOfOrderAreSorted) {
    auto m = onnx_model();
    add_input(m, "x", {2});
    add_node(m, "Relu", {"a"}, {"y"}, "second");
    add_node(m, "Neg", {"x"}, {"a"}, "first");
    add_output(m, "y", {2});
    save(m, path("m.onnx"));
    EXPECT_EQ(run(onnx::read_onnx(path("m.onnx")), {1, -2}), (std::vector<float>{0, 2}));
}

TEST_F(OnnxReader, OpsetOutsideTheSupportedRange) {
    auto m = add_model();
    m.mutable_opset_import(0)->set_version(22);
    save(m, path("m.onnx"));
    const std::string e = read_error(path("m.onnx"));
    EXPECT_NE(e.find("opset 22"), std::string::npos) << e;
    EXPECT_NE(e.find("1 to 21"), std::string::npos) << e;
    // Opset 21 (what ONNX Runtime GenAI's model builder writes) is read.
    m.mutable_opset_import(0)->set_version(21);
    save(m, path("m21.onnx"));
    EXPECT_EQ(read_error(path("m21.onnx")), "no error");
}

// ONNX Runtime's contrib ops: those its model builders write are translated; another op of the
// domain, or another domain, is refused naming what is translated.
TEST_F(OnnxReader, ContribOpsOfOtherDomains) {
    auto with_op = [&](const std::string& domain, const std::string& type) {
        auto m = onnx_model(17);
        auto* import = m.add_opset_import();
        import->set_domain(domain);
        import->set_version(1);
        add_input(m, "x", {1, 4});
        add_node(m, type, {"x", "x"}, {"y"}, "contrib")->set_domain(domain);
        add_output(m, "y", {1, 4});
        save(m, path("contrib.onnx"));
        return read_error(path("contrib.onnx"));
    };
    std::string e = with_op("com.microsoft", "FusedMatMul");
    EXPECT_NE(e.find("op type 'FusedMatMul' of domain 'com.microsoft' is not supported"), std::string::npos) << e;
    EXPECT_NE(e.find("GroupQueryAttention"), std::string::npos) << e;
    e = with_op("com.example", "Frobnicate");
    EXPECT_NE(e.find("domain 'com.example' is not supported"), std::string::npos) << e;
}

// Opsets before 7 are read with each op's meaning of then (onnx_legacy_opset_test.cpp tests the
// forms that changed); ops that kept theirs read as in later opsets.
TEST_F(OnnxReader, OldOpsetsAreRead) {
    auto m = onnx_model(6);
    add_input(m, "x", {2});
    add_node(m, "Relu", {"x"}, {"y"}, "relu");
    add_output(m, "y", {2});
    save(m, path("relu.onnx"));
    EXPECT_EQ(run(onnx::read_onnx(path("relu.onnx")), {-1, 2}), (std::vector<float>{0, 2}));

    auto legacy = add_model();  // Add of two equal shapes: the same without broadcasting at opset 6
    legacy.mutable_opset_import(0)->set_version(6);
    save(legacy, path("add.onnx"));
    EXPECT_EQ(run(onnx::read_onnx(path("add.onnx")), {1, 1, 1, 1}), (std::vector<float>{2, 3, 4, 5}));
}

// Found by fuzzing (tests/fuzz/regressions/onnx_reader): EyeLike reads its input's shape through
// ShapeOf, which is folded from the shape alone; for an f16 input the reference kernels' widening to
// f32 read the input's values, which folding does not have (a null pointer).
TEST_F(OnnxReader, EyeLikeOfAnF16InputFoldsItsShape) {
    auto m = onnx_model(9);
    add_input(m, "x", {2, 3}, TensorProto::FLOAT16);
    add_node(m, "EyeLike", {"x"}, {"y"}, "eye");
    add_output(m, "y", {2, 3}, TensorProto::FLOAT16);
    save(m, path("eye.onnx"));
    const auto model = onnx::read_onnx(path("eye.onnx"));
    const Node* result = model->get_results().at(0);
    EXPECT_EQ(result->input(0).get_partial_shape(), (Shape{2, 3}));
    EXPECT_EQ(result->input(0).get_element_type(), ElementType::f16);
}

// Found by fuzzing (tests/fuzz/regressions/onnx_reader/lstm_hidden_size_without_weights.onnx): an
// LSTM without B gets a zero bias of [num_directions, 4 * hidden_size], made while reading; with
// hidden_size=2147483647 and R [1,12,3] the reader tried to allocate 64 GiB.
TEST_F(OnnxReader, LstmHiddenSizeMustMatchRAndStayReadable) {
    auto lstm = [&](const std::vector<int64_t>& r_dims, int64_t hidden) {
        auto m = onnx_model(14);
        add_input(m, "x", {1, 1, 2});
        add_input(m, "w", {1, 12, 2});
        add_input(m, "r", r_dims);
        set_int(add_node(m, "LSTM", {"x", "w", "r"}, {"", "y_h"}, "lstm"), "hidden_size", hidden);
        add_output(m, "y_h", {1, 1, 3});
        save(m, path("lstm.onnx"));
        return read_error(path("lstm.onnx"));
    };
    const std::string disagrees = lstm({1, 12, 3}, 2147483647);
    for (const char* part : {"'lstm' (LSTM", "hidden_size=2147483647 disagrees with R's shape [1,12,3]"})
        EXPECT_NE(disagrees.find(part), std::string::npos) << part << " in: " << disagrees;
    const std::string too_large = lstm({1, -1, -1}, 2147483647);  // R's shape says nothing
    EXPECT_NE(too_large.find("hidden_size=2147483647 is larger than"), std::string::npos) << too_large;
}

// Found by fuzzing (tests/fuzz/regressions/onnx_reader/celu_int8_alpha_out_of_range.onnx): Celu's
// alpha becomes a constant of its input's element type; 9.2e18 as int8 was an undefined cast
// (UBSan). A value its type cannot hold is refused naming the node; one it can hold gets past it.
TEST_F(OnnxReader, AnAttributeValueTheInputTypeCannotHoldIsRefused) {
    auto celu = [&](float alpha) {
        auto m = onnx_model(12);
        add_input(m, "x", {2, 3}, TensorProto::INT8);
        set_float(add_node(m, "Celu", {"x"}, {"y"}, "celu"), "alpha", alpha);
        add_output(m, "y", {2, 3}, TensorProto::INT8);
        save(m, path("celu.onnx"));
        return read_error(path("celu.onnx"));
    };
    const std::string error = celu(9.2e18f);
    for (const char* part : {"'celu' (Celu", "as i8 (its input's element type), which cannot hold it"})
        EXPECT_NE(error.find(part), std::string::npos) << part << " in: " << error;
    EXPECT_NE(celu(std::nanf("")).find("which cannot hold it"), std::string::npos);
    // 2 fits int8: the reader goes on, to Elu's refusal of an integer input.
    const std::string fits = celu(2.0f);
    EXPECT_EQ(fits.find("cannot hold it"), std::string::npos) << fits;
    EXPECT_NE(fits.find("must have a floating-point element type"), std::string::npos) << fits;
}

// Found by fuzzing (tests/fuzz/regressions/onnx_reader/hardmax_input_of_2_63_bytes.onnx): a graph
// input declared [1,2147483647,7,2147483647] overflowed Hardmax's rows times columns (UBSan); such
// an input is refused where it is read, naming it.
TEST_F(OnnxReader, AnInputOfMoreThan2To63BytesIsRefused) {
    auto error_for = [&](const std::vector<int64_t>& dims) {
        auto m = onnx_model(11);
        add_input(m, "x", dims);
        add_node(m, "Hardmax", {"x"}, {"y"}, "hardmax");
        add_output(m, "y", dims);
        save(m, path("huge.onnx"));
        return read_error(path("huge.onnx"));
    };
    const std::string error = error_for({1, 2147483647, 7, 2147483647});
    for (const char* part : {"input 'x'", "[1,2147483647,7,2147483647] of f32 holds more than 2^63 bytes"})
        EXPECT_NE(error.find(part), std::string::npos) << part << " in: " << error;
    // Empty, yet its other dimensions overflow any partial product: the kept input's case.
    const std::string empty = error_for({0, 2147483647, 7, 2147483647});
    EXPECT_NE(empty.find("zero and dynamic dimensions counted as 1"), std::string::npos) << empty;
}

// Found by fuzzing (tests/fuzz/regressions/onnx_reader/conv_transpose_pad_int64_min.onnx): the
// output size of a ConvTranspose subtracted a pad of INT64_MIN, a signed overflow (UBSan).
TEST_F(OnnxReader, ConvTransposeSizesBeyond64BitsAreRefused) {
    auto m = onnx_model(11);
    add_input(m, "x", {1, 1, 4, 4});
    add_input(m, "w", {1, 1, 3, 3});
    set_ints(add_node(m, "ConvTranspose", {"x", "w"}, {"y"}, "deconv"), "pads",
             {0, 0, 0, std::numeric_limits<int64_t>::min()});
    add_output(m, "y", {1, 1, 6, 6});
    save(m, path("deconv.onnx"));
    const std::string error = read_error(path("deconv.onnx"));
    for (const char* part : {"'deconv' (ConvTranspose", "the output size on spatial axis 1 is out of the 64-bit range"})
        EXPECT_NE(error.find(part), std::string::npos) << part << " in: " << error;
}

// Found by fuzzing (tests/fuzz/regressions/onnx_reader/lp_pool_kernel_of_int64_min.onnx): LpPool's
// window, which its translator works out itself, took a kernel_shape of INT64_MIN into a signed
// overflow (UBSan); a pad near INT64_MAX did likewise.
TEST_F(OnnxReader, LpPoolWindowsOutOfRangeAreRefused) {
    for (const auto& [kernel, pads, expected] :
         {std::tuple{std::vector<int64_t>{std::numeric_limits<int64_t>::min(), 2}, std::vector<int64_t>{0, 0, 0, 0},
                     "kernel_shape and strides must be positive"},
          std::tuple{std::vector<int64_t>{2, 2}, std::vector<int64_t>{std::numeric_limits<int64_t>::max(), 0, 0, 0},
                     "sizes beyond 64 bits"}}) {
        auto m = onnx_model(11);
        add_input(m, "x", {1, 1, 4, 4});
        auto* n = add_node(m, "LpPool", {"x"}, {"y"}, "lp");
        set_ints(n, "kernel_shape", kernel);
        set_ints(n, "pads", pads);
        add_output(m, "y", {1, 1, 3, 3});
        save(m, path("lp.onnx"));
        const std::string error = read_error(path("lp.onnx"));
        for (const char* part : {"'lp' (LpPool", expected})
            EXPECT_NE(error.find(part), std::string::npos) << part << " in: " << error;
    }
}

// Found by fuzzing (tests/fuzz/regressions/onnx_reader/tile_axis_nan.onnx): an integer read from a
// floating-point constant (Tile-1's tiles here) cast NaN to int64, which is undefined (UBSan).
TEST_F(OnnxReader, ANaNWhereAnIntegerIsNeededIsRefused) {
    auto m = onnx_model(5);  // Tile-1: (input, tiles, axis), scalars of any numeric type
    add_input(m, "x", {2, 3});
    add_initializer(m, "tiles", {}, {std::nanf("")});
    add_initializer(m, "axis", {}, {0.0f});
    add_node(m, "Tile", {"x", "tiles", "axis"}, {"y"}, "tile");
    add_output(m, "y", {2, 3});
    save(m, path("tile.onnx"));
    const std::string error = read_error(path("tile.onnx"));
    for (const char* part : {"'tile' (Tile", "input 1 (tiles)", "stands where an integer is needed, and has none"})
        EXPECT_NE(error.find(part), std::string::npos) << part << " in: " << error;
}

TEST_F(OnnxReader, MissingGraphOutputProducer) {
    auto m = add_model();
    m.mutable_graph()->mutable_output(0)->set_name("nowhere");
    save(m, path("m.onnx"));
    EXPECT_NE(read_error(path("m.onnx")).find("'nowhere'"), std::string::npos);
}

TEST_F(OnnxReader, TensorFilesAreReadAndCorruptOnesRefused) {
    TensorProto t;
    t.set_name("input");
    t.set_data_type(TensorProto::INT64);
    t.add_dims(2);
    t.add_int64_data(7);
    t.add_int64_data(-3);
    {
        std::ofstream out(path("t.pb"), std::ios::binary);
        t.SerializeToOstream(&out);
    }
    std::string name;
    Tensor v = onnx::read_tensor_file(path("t.pb"), &name);
    EXPECT_EQ(name, "input");
    EXPECT_EQ(v.to_vector<int64_t>(), (std::vector<int64_t>{7, -3}));
    std::ofstream(path("bad.pb"), std::ios::binary) << "\xff\xff\xff";
    EXPECT_THROW(onnx::read_tensor_file(path("bad.pb")), ModelError);
}

// What write_tensor_file writes (mosaic compare's fused-chain cases) reads back as it was; a file
// that cannot be written is named.
TEST_F(OnnxReader, TensorFilesWrittenReadBack) {
    const Tensor f = Tensor::from_vector<float>({2, 2}, ElementType::f32, {1.5f, -2.0f, 0.25f, 1e30f});
    onnx::write_tensor_file(path("f.pb"), f, "x:0");
    std::string name;
    const Tensor back = onnx::read_tensor_file(path("f.pb"), &name);
    EXPECT_EQ(name, "x:0");
    EXPECT_EQ(back.get_shape(), (Shape{2, 2}));
    EXPECT_EQ(back.to_vector<float>(), f.to_vector<float>());
    Tensor flags(ElementType::boolean, {3});
    flags.data<uint8_t>()[0] = 1, flags.data<uint8_t>()[1] = 0, flags.data<uint8_t>()[2] = 1;
    onnx::write_tensor_file(path("b.pb"), flags);
    EXPECT_EQ(onnx::read_tensor_file(path("b.pb")).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 0, 1}));
    try {
        onnx::write_tensor_file(path("no/such/folder/t.pb"), f);
        ADD_FAILURE() << "wrote into a folder that does not exist";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("no/such/folder/t.pb"), std::string::npos) << e.what();
    }
}

// ONNX's Bitwise* (opset 18) as Mosaic's Bitwise*-13, run on REFERENCE and CPU; a float operand is
// refused naming the node.
TEST_F(OnnxReader, BitwiseOpsOfOpset18) {
    auto m = onnx_model(18);
    add_input(m, "a", {2, 3}, TensorProto::INT32);
    add_input(m, "b", {3}, TensorProto::INT32);
    add_node(m, "BitwiseAnd", {"a", "b"}, {"and"}, "and");
    add_node(m, "BitwiseOr", {"a", "b"}, {"or"}, "or");
    add_node(m, "BitwiseXor", {"a", "b"}, {"xor"}, "xor");
    add_node(m, "BitwiseNot", {"a"}, {"not"}, "not");
    for (const char* out : {"and", "or", "xor", "not"}) add_output(m, out, {2, 3}, TensorProto::INT32);
    save(m, path("m.onnx"));
    const std::vector<int32_t> a{0x0F0F, -1, 0, 5, 6, 7}, b{0x00FF, 6, -1};
    for (const char* device : {"REFERENCE", "CPU"}) {
        Core core;
        InferRequest r = core.compile_model(core.read_model(path("m.onnx")), device).create_infer_request();
        r.set_tensor("a", Tensor::from_vector(Shape{2, 3}, ElementType::i32, a));
        r.set_tensor("b", Tensor::from_vector(Shape{3}, ElementType::i32, b));
        r.infer();
        std::vector<int32_t> want_and, want_or, want_xor, want_not;
        for (size_t i = 0; i < a.size(); ++i) {
            want_and.push_back(a[i] & b[i % 3]);
            want_or.push_back(a[i] | b[i % 3]);
            want_xor.push_back(a[i] ^ b[i % 3]);
            want_not.push_back(~a[i]);
        }
        EXPECT_EQ(r.get_tensor("and").to_vector<int32_t>(), want_and) << device;
        EXPECT_EQ(r.get_tensor("or").to_vector<int32_t>(), want_or) << device;
        EXPECT_EQ(r.get_tensor("xor").to_vector<int32_t>(), want_xor) << device;
        EXPECT_EQ(r.get_tensor("not").to_vector<int32_t>(), want_not) << device;
    }
    auto bad = onnx_model(18);
    add_input(bad, "a", {2}, TensorProto::FLOAT);
    add_node(bad, "BitwiseNot", {"a"}, {"y"}, "flip");
    add_output(bad, "y", {2});
    save(bad, path("bad.onnx"));
    const std::string e = read_error(path("bad.onnx"));
    EXPECT_NE(e.find("flip"), std::string::npos) << e;
    EXPECT_NE(e.find("must have an integer or boolean element type, got f32"), std::string::npos) << e;
}

}  // namespace
}  // namespace mosaic::test
