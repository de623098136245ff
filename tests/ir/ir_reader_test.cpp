// Reading IR v10 and v11: graph structure, attributes, tensor names, rt_info, dynamic dims, the
// default .bin path, and that weights are views into the memory-mapped .bin.
#include "common/process_status.hpp"
#include "ir_test_util.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace mosaic::ir::test {
namespace {

template <typename T>
T value_at(const Node& constant, size_t index) {
    T v;
    std::memcpy(&v, static_cast<const uint8_t*>(constant.constant_data()->data()) + index * sizeof(T), sizeof(T));
    return v;
}

const Node& node_named(const Model& m, const std::string& name) {
    const Node* n = m.find_node(name);
    if (!n) throw std::runtime_error("no node named " + name);
    return *n;
}

std::shared_ptr<Model> read_conv(const std::string& xml) { return read_ir(data_file(xml), data_file("conv.bin")); }

TEST(IrReader, ReadsV10ConvNet) {
    auto m = read_conv("conv_v10.xml");
    EXPECT_EQ(m->get_friendly_name(), "conv_v10");
    ASSERT_EQ(m->get_ops().size(), 11u);

    // Layers keep file order, ids (shifted by one, see ir.hpp) and friendly names; IR spellings
    // Const / ReLU become the opset names.
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"input", "Parameter"}, {"conv1/weights", "Constant"}, {"conv1", "Convolution"},
        {"conv1/bias", "Constant"}, {"conv1/add", "Add"},      {"relu1", "Relu"},
        {"flatten/shape", "Constant"}, {"flatten", "Reshape"}, {"fc/weights", "Constant"},
        {"fc", "MatMul"},           {"logits", "Result"}};
    for (size_t i = 0; i < expected.size(); ++i) {
        const Node& n = *m->get_ops()[i];
        EXPECT_EQ(n.get_friendly_name(), expected[i].first);
        EXPECT_EQ(n.get_type_name(), expected[i].second);
        EXPECT_EQ(n.version(), "opset1");
        EXPECT_EQ(n.id(), node_id_of_layer(i));
    }

    // Attributes in file order; a Constant's offset and size are not kept.
    const Node& conv = node_named(*m, "conv1");
    const Attributes conv_attrs{{"strides", "1,1"}, {"dilations", "1,1"}, {"pads_begin", "1,1"},
                                {"pads_end", "1,1"}, {"auto_pad", "explicit"}};
    EXPECT_EQ(conv.attrs(), conv_attrs) << describe(conv.attrs());
    const Attributes weight_attrs{{"element_type", "f32"}, {"shape", "4,3,3,3"}};
    EXPECT_EQ(node_named(*m, "conv1/weights").attrs(), weight_attrs);

    // Edges.
    EXPECT_EQ(conv.input(0).node, &node_named(*m, "input"));
    EXPECT_EQ(conv.input(1).node, &node_named(*m, "conv1/weights"));
    EXPECT_EQ(node_named(*m, "logits").input(0).node, &node_named(*m, "fc"));

    // Inferred types and shapes (checked against the declared ports while reading).
    EXPECT_EQ(conv.output_shape(0), (Shape{1, 4, 8, 8}));
    EXPECT_EQ(node_named(*m, "flatten").output_shape(0), (Shape{1, 256}));
    EXPECT_EQ(node_named(*m, "fc").output_type(0), ElementType::f32);
    EXPECT_EQ(node_named(*m, "fc").output_shape(0), (Shape{1, 10}));

    // Constant bytes.
    EXPECT_FLOAT_EQ(value_at<float>(node_named(*m, "conv1/weights"), 5), 0.05f);
    EXPECT_FLOAT_EQ(value_at<float>(node_named(*m, "conv1/bias"), 1), -0.5f);
    EXPECT_EQ(value_at<int64_t>(node_named(*m, "flatten/shape"), 1), 256);
    EXPECT_FLOAT_EQ(value_at<float>(node_named(*m, "fc/weights"), 9), 0.25f);

    ASSERT_EQ(m->get_parameters().size(), 1u);
    ASSERT_EQ(m->get_results().size(), 1u);
    EXPECT_EQ(Model::input_name(*m->get_parameters()[0]), "input");
    // Model Optimizer's <meta_data> becomes model rt_info.
    const RTMap meta{{"MO_version", "2021.4.2-3976-0943ed67223-refs/pull/539/head"},
                           {"cli_parameters/data_type", "FP32"},
                           {"cli_parameters/input_model", "DIR/conv.onnx"}};
    EXPECT_EQ(m->get_rt_info(), meta) << describe(m->get_rt_info());
}

TEST(IrReader, ReadsV11TensorNamesAndRuntimeInfo) {
    auto m = read_conv("conv_v11.xml");
    EXPECT_EQ(m->get_friendly_name(), "conv_v11");

    // Port names, with "\," escaping a comma inside a name.
    const Node& input = node_named(*m, "input");
    EXPECT_EQ(input.output_names(0), (std::vector<std::string>{"input", "data,nchw"}));
    EXPECT_EQ(node_named(*m, "relu1").output_names(0), (std::vector<std::string>{"relu1:0"}));
    EXPECT_EQ(Model::input_name(input), "input");
    const Node& result = node_named(*m, "logits");
    EXPECT_EQ(result.output_names(0), (std::vector<std::string>{"logits"}));
    EXPECT_EQ(Model::output_name(result), "logits");

    // Per-layer rt_info: OpenVINO attributes and custom entries, nested ones flattened.
    const RTMap relu_info{{"fused_names", "relu1,conv1/add"}, {"affinity", "GPU"}};
    EXPECT_EQ(node_named(*m, "relu1").get_rt_info(), relu_info) << describe(node_named(*m, "relu1").get_rt_info());
    const RTMap conv_info{{"affinity", "CPU"}, {"quantization/bits", "8"}, {"quantization/scheme", "symmetric"}};
    EXPECT_EQ(node_named(*m, "conv1").get_rt_info(), conv_info) << describe(node_named(*m, "conv1").get_rt_info());
    EXPECT_TRUE(node_named(*m, "fc").get_rt_info().empty());

    // Model rt_info: nested elements flattened to a/b, <info name=...> for names that are not tags.
    const RTMap model_info{{"MO_version", "2023.0.0"},
                                 {"conversion_parameters/input_model", "DIR/conv.onnx"},
                                 {"conversion_parameters/is_python_api_used", "True"},
                                 {"framework version", "1.14"}};
    EXPECT_EQ(m->get_rt_info(), model_info) << describe(m->get_rt_info());
}

TEST(IrReader, V10AndV11DescribeTheSameGraph) {
    auto v10 = read_conv("conv_v10.xml");
    auto v11 = read_conv("conv_v11.xml");
    ASSERT_EQ(v10->get_ops().size(), v11->get_ops().size());
    for (size_t i = 0; i < v10->get_ops().size(); ++i) {
        const Node &a = *v10->get_ops()[i], &b = *v11->get_ops()[i];
        EXPECT_EQ(a.type_and_version(), b.type_and_version());
        EXPECT_EQ(a.attrs(), b.attrs());
        ASSERT_EQ(a.output_count(), b.output_count());
        for (size_t o = 0; o < a.output_count(); ++o) {
            EXPECT_EQ(a.output_type(o), b.output_type(o));
            EXPECT_EQ(a.output_shape(o), b.output_shape(o));
        }
    }
}

constexpr const char* kDynamicXml = R"(<?xml version="1.0"?>
<net name="dyn" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="?,3,1..10,4" element_type="f16"/>
      <output>
        <port id="0" precision="FP16" names="x">
          <dim>-1</dim><dim>3</dim><dim>1..10</dim><dim>?</dim>
        </port>
      </output>
    </layer>
    <layer id="1" name="act" type="Relu" version="opset1">
      <input><port id="0" precision="FP16"><dim>-1</dim><dim>3</dim><dim>-1</dim><dim>4</dim></port></input>
      <output><port id="1" precision="FP16"><dim>-1</dim><dim>3</dim><dim>-1</dim><dim>4</dim></port></output>
    </layer>
    <layer id="2" name="y" type="Result" version="opset1">
      <input><port id="0" precision="FP16"><dim>-1</dim><dim>3</dim><dim>-1</dim><dim>4</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
    <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
  </edges>
</net>
)";

TEST(IrReader, DynamicDimsAndRanges) {
    TempDir dir;
    // No Constant, so no .bin is needed (none exists in the directory).
    auto m = read_ir(dir.write("dyn.xml", kDynamicXml));
    const Node& x = node_named(*m, "x");
    EXPECT_EQ(x.output_type(0), ElementType::f16);
    EXPECT_EQ(x.output_shape(0), (Shape{kDynamicDim, 3, kDynamicDim, 4}));
    // The range stays in the shape attribute, where the compiled model checks inputs against it.
    EXPECT_EQ(x.attrs().get_string("shape"), "?,3,1..10,4");
    EXPECT_EQ(Model::input_partial_shape(x).to_string(), "[?,3,1..10,4]");
    EXPECT_EQ(node_named(*m, "act").output_shape(0), (Shape{kDynamicDim, 3, kDynamicDim, 4}));
}

constexpr const char* kAddConstXml = R"(<?xml version="1.0"?>
<net name="add_const" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="2,4" element_type="f32"/>
      <output><port id="0" precision="FP32"><dim>2</dim><dim>4</dim></port></output>
    </layer>
    <layer id="1" name="c" type="Const" version="opset1">
      <data element_type="f32" shape="4" offset="4" size="16"/>
      <output><port id="0" precision="FP32"><dim>4</dim></port></output>
    </layer>
    <layer id="2" name="sum" type="Add" version="opset1">
      <data auto_broadcast="numpy"/>
      <input>
        <port id="0" precision="FP32"><dim>2</dim><dim>4</dim></port>
        <port id="1" precision="FP32"><dim>4</dim></port>
      </input>
      <output><port id="2" precision="FP32"><dim>2</dim><dim>4</dim></port></output>
    </layer>
    <layer id="3" name="out" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>2</dim><dim>4</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
    <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
  </edges>
</net>
)";

TEST(IrReader, DefaultBinPathIsTheXmlStem) {
    TempDir dir;
    const std::string xml = dir.write("model.xml", kAddConstXml);
    dir.write_values<float>("model.bin", {99.f, 1.f, 2.f, 3.f, 4.f});
    EXPECT_EQ(default_bin_path(xml), dir.path("model.bin"));
    auto m = read_ir(xml);
    EXPECT_FLOAT_EQ(value_at<float>(node_named(*m, "c"), 0), 1.f);
    EXPECT_FLOAT_EQ(value_at<float>(node_named(*m, "c"), 3), 4.f);
}

// A misaligned constant is copied out of the .bin by reading the file: copying it through the
// mapping left the mapping's pages resident beside the copy, twice its size for as long as the
// model lived (optimum-intel's LLM IRs put 1.4 GB of weights one byte off alignment).
TEST(IrReader, MisalignedWeightsAreReadFromTheFileNotThroughTheMapping) {
    constexpr int64_t n = 16 << 20;  // 64 MiB of f32
    TempDir dir;
    std::string xml = replaced(kAddConstXml, R"(shape="4" offset="4" size="16")",
                               "shape=\"" + std::to_string(n) + "\" offset=\"1\" size=\"" + std::to_string(4 * n) + "\"");
    xml = replaced(xml, R"(shape="2,4")", "shape=\"2," + std::to_string(n) + "\"");
    for (size_t at; (at = xml.find("<dim>4</dim>")) != std::string::npos;)
        xml.replace(at, 12, "<dim>" + std::to_string(n) + "</dim>");
    std::string bin(static_cast<size_t>(4 * n + 1), '\0');
    const float last = 7.5f;
    std::memcpy(&bin[bin.size() - 4], &last, 4);
    dir.write("big.bin", bin);
    const int64_t before = mosaic::test::process_status_kib("RssFile");
    if (before < 0) GTEST_SKIP() << "no RssFile in /proc/self/status";
    auto m = read_ir(dir.write("big.xml", xml), dir.path("big.bin"));
    const int64_t grown_kb = mosaic::test::process_status_kib("RssFile") - before;
    EXPECT_LT(grown_kb, 16 * 1024) << "the reader kept " << grown_kb << " kB of the .bin's mapping resident";
    EXPECT_EQ(reinterpret_cast<uintptr_t>(node_named(*m, "c").constant_data()->data()) % alignof(float), 0u);
    EXPECT_FLOAT_EQ(value_at<float>(node_named(*m, "c"), static_cast<size_t>(n - 1)), last);
}

TEST(IrReader, AcceptsOpsetSpellingsOfLegacyTypeNames) {
    TempDir dir;
    std::string xml = replaced(kAddConstXml, "type=\"Const\"", "type=\"Constant\"");
    dir.write_values<float>("model.bin", {0.f, 1.f, 2.f, 3.f, 4.f});
    auto m = read_ir(dir.write("model.xml", xml));
    EXPECT_EQ(node_named(*m, "c").get_type_name(), "Constant");
}

TEST(IrReader, ExplicitBinPath) {
    TempDir dir;
    const std::string xml = dir.write("model.xml", kAddConstXml);
    const std::string bin = dir.write_values<float>("weights.data", {0.f, -1.f, -2.f, -3.f, -4.f});
    auto m = read_ir(xml, bin);
    EXPECT_FLOAT_EQ(value_at<float>(node_named(*m, "c"), 2), -3.f);
}

// The mappings of this process, from /proc/self/maps: [start, end) -> file.
struct MappedRange {
    uintptr_t start = 0, end = 0;
    uint64_t file_offset = 0;
    std::string path;
};

std::vector<MappedRange> mapped_ranges() {
    std::vector<MappedRange> out;
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        std::istringstream s(line);
        std::string range, perms, offset, dev, inode, path;
        s >> range >> perms >> offset >> dev >> inode;
        std::getline(s >> std::ws, path);
        MappedRange r;
        r.start = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
        r.end = std::stoull(range.substr(range.find('-') + 1), nullptr, 16);
        r.file_offset = std::stoull(offset, nullptr, 16);
        r.path = path;
        out.push_back(r);
    }
    return out;
}

const MappedRange* range_of(const std::vector<MappedRange>& ranges, const void* p) {
    const auto a = reinterpret_cast<uintptr_t>(p);
    for (const auto& r : ranges)
        if (a >= r.start && a < r.end) return &r;
    return nullptr;
}

TEST(IrReader, WeightsAreViewsIntoTheMappedBin) {
    const std::string bin = std::filesystem::canonical(data_file("conv.bin")).string();
    auto m = read_conv("conv_v10.xml");
    std::shared_ptr<const Buffer> weights = node_named(*m, "fc/weights").constant_data();
    ASSERT_TRUE(weights);

    // The bytes live in a file mapping of conv.bin, at their offset in the file: not a heap copy.
    const auto ranges = mapped_ranges();
    const MappedRange* r = range_of(ranges, weights->data());
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->path, bin);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(weights->data()) - r->start + r->file_offset, 464u);
    // Every Constant points into the same mapping.
    for (const char* name : {"conv1/weights", "conv1/bias", "flatten/shape"})
        EXPECT_EQ(range_of(ranges, node_named(*m, name).constant_data()->data())->start, r->start) << name;

    // The Buffer keeps the mapping alive after the model is gone, and releases it with the last user.
    const void* data = weights->data();
    m.reset();
    const auto ranges_now = mapped_ranges();
    const MappedRange* still = range_of(ranges_now, data);
    ASSERT_NE(still, nullptr);
    EXPECT_EQ(still->path, bin);
    float v;
    std::memcpy(&v, static_cast<const uint8_t*>(data) + 9 * sizeof(float), sizeof v);
    EXPECT_FLOAT_EQ(v, 0.25f);
    weights.reset();
    const auto after = mapped_ranges();
    const MappedRange* gone = range_of(after, data);
    EXPECT_TRUE(gone == nullptr || gone->path != bin);
}

TEST(IrReader, OpenVinoRuntimeAttributesWithoutValue) {
    TempDir dir;
    std::string xml = replaced(kDynamicXml, R"(<layer id="1" name="act" type="Relu" version="opset1">)",
                               R"(<layer id="1" name="act" type="Relu" version="opset1">
      <rt_info>
        <attribute name="precise" version="0"/>
        <attribute name="old_api_map_order" version="0" value="0,2,3,1"/>
        <custom name="map">
          <custom name="inner">
            <custom name="leaf" value="1"/>
          </custom>
        </custom>
      </rt_info>)");
    auto m = read_ir(dir.write("rt.xml", xml));
    const RTMap expected{{"precise", ""}, {"old_api_map_order", "0,2,3,1"}, {"map/inner/leaf", "1"}};
    EXPECT_EQ(node_named(*m, "act").get_rt_info(), expected) << describe(node_named(*m, "act").get_rt_info());
}

TEST(IrReader, StaticRangeIsAStaticDim) {
    TempDir dir;
    std::string xml = replaced(kDynamicXml, R"(shape="?,3,1..10,4")", R"(shape="2,3,5..5,4")");
    auto m = read_ir(dir.write("r.xml", xml));
    EXPECT_EQ(node_named(*m, "x").output_shape(0), (Shape{2, 3, 5, 4}));
}

// Found by fuzzing (tests/fuzz/regressions/ir_reader): the IR format lets a Constant start at any
// byte of the .bin, and a view at an odd offset made shape inference read the i64 Reshape target
// through a misaligned pointer (undefined behaviour). Such a Constant is copied to aligned memory.
TEST(IrReader, ConstantAtAMisalignedOffsetIsReadIntoAlignedMemory) {
    TempDir dir;
    const std::string bin = read_text(data_file("conv.bin"));
    const std::string odd_offset = std::to_string(bin.size() + 1);  // the mapping is page-aligned
    dir.write("odd.bin", bin + '\0' + bin.substr(448, 16));          // flatten/shape's two i64 again
    const std::string xml = replaced(read_text(data_file("conv_v11.xml")), R"(offset="448")",
                                     "offset=\"" + odd_offset + "\"");
    auto m = read_ir(dir.write("odd.xml", xml), dir.path("odd.bin"));

    const auto shape = node_named(*m, "flatten/shape").constant_data();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(shape->data()) % alignof(int64_t), 0u);
    int64_t expected[2];
    std::memcpy(expected, bin.data() + 448, sizeof expected);
    EXPECT_EQ(std::memcmp(shape->data(), expected, sizeof expected), 0);
    EXPECT_EQ(node_named(*m, "flatten").output_shape(0), (Shape{1, 256}));
}

}  // namespace
}  // namespace mosaic::ir::test
