// Writing IR v11 and reading it back: models built in code, files read from disk, rt_info, tensor
// names, constant packing, and writing over the files a model was read from.
#include "ir_test_util.hpp"

#include <cstring>
#include <numeric>

namespace mosaic::ir::test {
namespace {

std::vector<float> iota_floats(size_t n, float scale) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) * scale;
    return v;
}

// Parameter -> Convolution -> Add -> Relu -> Reshape -> MatMul -> Result, with names and rt_info.
std::shared_ptr<Model> build_conv_net() {
    ModelBuilder b("built");
    auto x = b.parameter("image", ElementType::f32, {1, 3, 8, 8});
    auto w = b.constant<float>({4, 3, 3, 3}, iota_floats(108, 0.01f), "conv/w");
    auto conv = b.op("Convolution", {x, w},
                     {{"strides", "1,1"}, {"dilations", "1,1"}, {"pads_begin", "1,1"}, {"pads_end", "1,1"},
                      {"auto_pad", "explicit"}},
                     "conv");
    auto bias = b.constant<float>({1, 4, 1, 1}, {0.5f, -0.5f, 1.f, -1.f}, "conv/b");
    auto add = b.op("Add", {conv, bias}, {{"auto_broadcast", "numpy"}}, "conv/add");
    auto relu = b.op("Relu", {add}, {}, "relu");
    auto target = b.constant<int64_t>({2}, {1, 256}, "flat/shape");
    auto flat = b.op("Reshape", {relu, target}, {{"special_zero", "false"}}, "flat");
    auto fc_w = b.constant<float>({256, 10}, iota_floats(2560, 0.001f), "fc/w");
    auto fc = b.op("MatMul", {flat, fc_w}, {{"transpose_a", "false"}, {"transpose_b", "false"}}, "fc");
    b.result(fc, "scores");
    b.result(relu, "features");

    Model& m = b.model();
    ModelBuilder::node(x)->set_output_names(0, {"image", "pixels,rgb"});
    ModelBuilder::node(fc)->set_output_names(0, {"scores"});
    ModelBuilder::node(conv)->get_rt_info()["affinity"] = "GPU";
    ModelBuilder::node(relu)->get_rt_info()["affinity"] = "CPU";
    ModelBuilder::node(relu)->get_rt_info()["fused_names"] = "relu,conv/add";
    ModelBuilder::node(add)->get_rt_info()["precise"] = "";
    ModelBuilder::node(fc)->get_rt_info()["note"] = "quotes \" & <angles> 'too'";
    ModelBuilder::node(fc)->get_rt_info()["nested/a"] = "1";
    ModelBuilder::node(fc)->get_rt_info()["nested/b/c"] = "2";
    m.get_rt_info()["framework"] = "mosaic";
    m.get_rt_info()["conversion/input_model"] = "net.onnx";
    m.get_rt_info()["conversion/options/layout"] = "NCHW";
    m.get_rt_info()["0 not a tag"] = "x";
    m.get_rt_info()["xmlish"] = "y";
    return b.build();
}

TEST(IrWriter, BuiltModelRoundTrips) {
    TempDir dir;
    auto original = build_conv_net();
    write_ir(*original, dir.path("net.xml"));
    auto copy = read_ir(dir.path("net.xml"));
    EXPECT_EQ(diff_models(*original, *copy), "");
}

// The text of the <layer> named `name` in written IR, "" when there is none.
std::string layer_text(const std::string& xml, const std::string& name) {
    const size_t name_at = xml.find(" name=\"" + name + "\" type=");
    if (name_at == std::string::npos) return "";
    const size_t begin = xml.rfind("<layer ", name_at);
    return xml.substr(begin, xml.find("</layer>", name_at) + 8 - begin);
}

uint64_t number_after(const std::string& text, const std::string& key) {
    const size_t at = text.find(key + "=\"");
    return at == std::string::npos ? UINT64_MAX : std::stoull(text.substr(at + key.size() + 2));
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(IrWriter, WritesOpenVinoLayout) {
    TempDir dir;
    auto m = build_conv_net();
    write_ir(*m, dir.path("net.xml"), dir.path("weights.bin"));
    EXPECT_TRUE(std::filesystem::exists(dir.path("weights.bin")));
    EXPECT_FALSE(std::filesystem::exists(dir.path("net.bin")));
    const std::string xml = read_text(dir.path("net.xml"));
    EXPECT_TRUE(contains(xml, "<net name=\"built\" version=\"11\">")) << xml;

    // Node ids are layer ids + 1 (IR layer ids start at 0); input ports first, output ports
    // numbered after them, OpenVINO precision names.
    const std::string conv = layer_text(xml, "conv");
    const std::string conv_id = std::to_string(m->find_node("conv")->id() - 1);
    EXPECT_TRUE(contains(conv, "<layer id=\"" + conv_id + "\" name=\"conv\" type=\"Convolution\" version=\"opset1\">"))
        << conv;
    EXPECT_TRUE(contains(conv, "<data strides=\"1,1\" dilations=\"1,1\" pads_begin=\"1,1\" pads_end=\"1,1\" "
                               "auto_pad=\"explicit\" />")) << conv;
    EXPECT_TRUE(contains(conv, "<custom name=\"affinity\" value=\"GPU\" />")) << conv;
    EXPECT_TRUE(contains(conv, "<port id=\"2\" precision=\"FP32\">")) << conv;

    // IR spellings of Constant and Relu; a known OpenVINO attribute in <attribute> form, flags
    // without a value.
    EXPECT_TRUE(contains(layer_text(xml, "conv/w"), "type=\"Const\""));
    const std::string relu = layer_text(xml, "relu");
    EXPECT_TRUE(contains(relu, "type=\"ReLU\"")) << relu;
    EXPECT_TRUE(contains(relu, "<attribute name=\"fused_names\" version=\"0\" value=\"relu,conv/add\" />")) << relu;
    EXPECT_TRUE(contains(layer_text(xml, "conv/add"), "<attribute name=\"precise\" version=\"0\" />"));
    const std::string fc = layer_text(xml, "fc");
    EXPECT_TRUE(contains(fc, "<custom name=\"nested\">")) << fc;
    EXPECT_TRUE(contains(fc, "value=\"quotes &quot; &amp; &lt;angles> 'too'\"")) << fc;

    // Escaped comma in tensor names; a Result has no <output>.
    EXPECT_TRUE(contains(layer_text(xml, "image"), "names=\"image,pixels\\,rgb\""));
    EXPECT_FALSE(contains(layer_text(xml, "scores"), "<output>"));

    // Model rt_info as nested elements; names that are not XML tags as <info name=...>.
    const std::string rt = xml.substr(xml.find("</edges>"));
    EXPECT_TRUE(contains(rt, "<conversion>")) << rt;
    EXPECT_TRUE(contains(rt, "<layout value=\"NCHW\" />")) << rt;
    EXPECT_TRUE(contains(rt, "<info name=\"0 not a tag\" value=\"x\" />")) << rt;
    EXPECT_TRUE(contains(rt, "<info name=\"xmlish\" value=\"y\" />")) << rt;
}

TEST(IrWriter, ConstantsArePackedAlignedAndDeduplicated) {
    TempDir dir;
    ModelBuilder b("packing");
    auto x = b.parameter("x", ElementType::f32, {16});
    auto small = b.constant<float>({1}, {3.f}, "small");              // 4 bytes
    auto big = b.constant<float>({16}, iota_floats(16, 1.f), "big");  // 64 bytes
    auto big_again = b.constant<float>({16}, iota_floats(16, 1.f), "big_again");
    auto odd = b.constant<uint8_t>({3}, {1, 2, 3}, "odd");
    auto y = b.op("Add", {b.op("Add", {x, big}), big_again});
    b.result(b.op("Multiply", {y, small}), "y");
    b.result(odd, "odd_out");
    auto m = b.build();
    write_ir(*m, dir.path("p.xml"));

    const std::string xml = read_text(dir.path("p.xml"));
    const uint64_t big_offset = number_after(layer_text(xml, "big"), "offset");
    EXPECT_EQ(big_offset % 64, 0u);
    EXPECT_EQ(number_after(layer_text(xml, "big_again"), "offset"), big_offset);  // stored once
    EXPECT_EQ(number_after(layer_text(xml, "small"), "offset") % 4, 0u);
    EXPECT_EQ(number_after(layer_text(xml, "big"), "size"), 64u);
    // Constant attributes: element_type, shape, then offset and size, as OpenVINO writes them.
    EXPECT_TRUE(contains(layer_text(xml, "odd"), "<data element_type=\"u8\" shape=\"3\" offset=\""));
    EXPECT_LE(std::filesystem::file_size(dir.path("p.bin")), 64u + 64u + 3u + 4u);

    // Read back, the 64-byte-aligned constant is 64-byte aligned in memory (the mapping starts on a page).
    auto copy = read_ir(dir.path("p.xml"));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(copy->find_node("big")->constant_data()->data()) % 64, 0u);
    EXPECT_EQ(diff_models(*m, *copy), "");
}

// read -> write -> read reproduces the model, and writing the re-read model gives identical files.
void expect_stable_round_trip(const std::string& xml) {
    TempDir dir;
    auto first = read_ir(data_file(xml), data_file("conv.bin"));
    write_ir(*first, dir.path("a.xml"));
    auto second = read_ir(dir.path("a.xml"));
    EXPECT_EQ(diff_models(*first, *second), "") << xml;
    write_ir(*second, dir.path("b.xml"));
    EXPECT_EQ(read_text(dir.path("a.xml")), read_text(dir.path("b.xml"))) << xml;
    EXPECT_EQ(read_text(dir.path("a.bin")), read_text(dir.path("b.bin"))) << xml;
}

TEST(IrWriter, V10FileRoundTripsAsV11) { expect_stable_round_trip("conv_v10.xml"); }

TEST(IrWriter, V11FileRoundTrips) { expect_stable_round_trip("conv_v11.xml"); }

TEST(IrWriter, WritingOverTheSourceFilesKeepsTheLoadedWeights) {
    TempDir dir;
    std::filesystem::copy_file(data_file("conv_v11.xml"), dir.path("m.xml"));
    std::filesystem::copy_file(data_file("conv.bin"), dir.path("m.bin"));
    auto m = read_ir(dir.path("m.xml"));
    const Node* fc_w = m->find_node("fc/weights");
    const std::vector<uint8_t> before(static_cast<const uint8_t*>(fc_w->constant_data()->data()),
                                      static_cast<const uint8_t*>(fc_w->constant_data()->data()) +
                                          fc_w->constant_data()->size());

    write_ir(*m, dir.path("m.xml"));  // the model's weights map the .bin being replaced
    EXPECT_EQ(std::memcmp(fc_w->constant_data()->data(), before.data(), before.size()), 0);
    EXPECT_FALSE(std::filesystem::exists(dir.path("m.xml.tmp")));
    EXPECT_FALSE(std::filesystem::exists(dir.path("m.bin.tmp")));
    auto again = read_ir(dir.path("m.xml"));
    EXPECT_EQ(diff_models(*m, *again), "");
}

TEST(IrWriter, DynamicShapesRoundTrip) {
    TempDir dir;
    ModelBuilder b("dynamic");
    auto x = b.parameter("x", ElementType::f32, {kDynamicDim, 3, kDynamicDim});
    b.result(b.op("Relu", {x}, {}, "act"), "y");
    auto m = b.build();
    write_ir(*m, dir.path("d.xml"));
    auto copy = read_ir(dir.path("d.xml"));
    EXPECT_EQ(copy->find_node("act")->output_shape(0), (Shape{kDynamicDim, 3, kDynamicDim}));
    EXPECT_EQ(diff_models(*m, *copy), "");
}

TEST(IrWriter, ResultTensorNamesAndAffinityRoundTrip) {
    TempDir dir;
    ModelBuilder b("names");
    auto x = b.parameter("x", ElementType::i32, {2});
    auto r = b.result(b.op("Negative", {x}, {}, "neg"), "out");
    ModelBuilder::node(r)->set_output_names(0, {"out", "y,1"});
    for (const auto& n : b.model().get_ops()) n->get_rt_info()["affinity"] = n->is_result() ? "CPU" : "GPU.1";
    auto m = b.build();
    write_ir(*m, dir.path("n.xml"));
    auto copy = read_ir(dir.path("n.xml"));
    EXPECT_EQ(copy->find_node("out")->output_names(0), (std::vector<std::string>{"out", "y,1"}));
    EXPECT_EQ(copy->find_node("neg")->get_rt_info().at("affinity"), "GPU.1");
    EXPECT_EQ(diff_models(*m, *copy), "");
}

TEST(IrWriter, RejectsAModelThatWasNotValidated) {
    TempDir dir;
    Model m("raw");
    Node* x = m.add_parameter("x", ElementType::f32, {1});
    m.add_result(x->output(0), "y");
    EXPECT_TRUE(throws_model_error([&] { write_ir(m, dir.path("raw.xml")); },
                                   {dir.path("raw.xml"), "'x'", "call Model::validate()"}));
    EXPECT_FALSE(std::filesystem::exists(dir.path("raw.xml")));
}

TEST(IrWriter, ReportsAnUnwritableDirectory) {
    auto m = build_conv_net();
    EXPECT_TRUE(throws_model_error([&] { write_ir(*m, "/nonexistent-dir/m.xml"); },
                                   {"/nonexistent-dir/m.bin", "cannot create the weights file"}));
}

}  // namespace
}  // namespace mosaic::ir::test
