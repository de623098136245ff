// Every way an IR can be broken gives a ModelError that names the file, the layer where there is
// one, what is wrong and what to do. Each test breaks one thing in a small valid model.
#include "ir_test_util.hpp"

namespace mosaic::ir::test {
namespace {

// x -> relu -> out
constexpr const char* kRelu = R"(<?xml version="1.0"?>
<net name="tiny" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="1,4" element_type="f32"/>
      <output><port id="0" precision="FP32"><dim>1</dim><dim>4</dim></port></output>
    </layer>
    <layer id="1" name="relu" type="Relu" version="opset1">
      <input><port id="0" precision="FP32"><dim>1</dim><dim>4</dim></port></input>
      <output><port id="1" precision="FP32"><dim>1</dim><dim>4</dim></port></output>
    </layer>
    <layer id="2" name="out" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>1</dim><dim>4</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
    <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
  </edges>
</net>
)";

// x + c -> out, c = 4 floats at offset 0 of the .bin
constexpr const char* kAddConst = R"(<?xml version="1.0"?>
<net name="add" version="10">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="1,4" element_type="f32"/>
      <output><port id="0" precision="FP32"><dim>1</dim><dim>4</dim></port></output>
    </layer>
    <layer id="1" name="c" type="Const" version="opset1">
      <data element_type="f32" shape="4" offset="0" size="16"/>
      <output><port id="0" precision="FP32"><dim>4</dim></port></output>
    </layer>
    <layer id="2" name="sum" type="Add" version="opset1">
      <data auto_broadcast="numpy"/>
      <input>
        <port id="0" precision="FP32"><dim>1</dim><dim>4</dim></port>
        <port id="1" precision="FP32"><dim>4</dim></port>
      </input>
      <output><port id="2" precision="FP32"><dim>1</dim><dim>4</dim></port></output>
    </layer>
    <layer id="3" name="out" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>1</dim><dim>4</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
    <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
  </edges>
</net>
)";

const std::vector<float> kFourFloats = {1.f, 2.f, 3.f, 4.f};

class IrErrors : public ::testing::Test {
protected:
    // Writes `xml` (and a .bin with `bin` when given) and checks read_ir() fails with all `parts`
    // and the .xml path in the message.
    ::testing::AssertionResult fails(const std::string& xml, std::initializer_list<std::string> parts,
                                     const std::vector<float>* bin = nullptr) {
        const std::string path = dir_.write("m.xml", xml);
        if (bin) dir_.write_values("m.bin", *bin);
        auto r = throws_model_error([&] { read_ir(path); }, parts);
        if (!r) return r;
        return throws_model_error([&] { read_ir(path); }, {path});
    }

    TempDir dir_;
};

TEST_F(IrErrors, TheTemplatesAreValid) {
    EXPECT_NO_THROW(read_ir(dir_.write("relu.xml", kRelu)));
    dir_.write_values("add.bin", kFourFloats);
    EXPECT_NO_THROW(read_ir(dir_.write("add.xml", kAddConst)));
}

TEST_F(IrErrors, MissingXmlFile) {
    EXPECT_TRUE(throws_model_error([&] { read_ir(dir_.path("absent.xml")); },
                                   {dir_.path("absent.xml"), "cannot open the model file", "No such file"}));
}

TEST_F(IrErrors, BrokenXml) {
    const std::string broken = replaced(kRelu, "</layers>", "</layer>");
    // pugixml's description, the byte offset and the line of the mismatch.
    EXPECT_TRUE(fails(broken, {"not well-formed XML", "Start-end tags mismatch", "at offset ", "line 15, column 5"}));
}

TEST_F(IrErrors, TruncatedXml) {
    EXPECT_TRUE(fails(std::string(kRelu).substr(0, 200), {"not well-formed XML", "at offset "}));
}

TEST_F(IrErrors, MissingNet) {
    EXPECT_TRUE(fails("<?xml version=\"1.0\"?><model/>", {"no <net> root element", "<model>", "not an OpenVINO IR"}));
}

TEST_F(IrErrors, MissingLayers) {
    EXPECT_TRUE(fails("<net name=\"n\" version=\"11\"><edges/></net>", {"<net> has no <layers>", "re-export"}));
}

TEST_F(IrErrors, UnsupportedIrVersion) {
    EXPECT_TRUE(fails(replaced(kRelu, "version=\"11\">", "version=\"7\">"),
                      {"IR version '7' is not supported", "v10 and v11"}));
}

TEST_F(IrErrors, UnknownOpType) {
    EXPECT_TRUE(fails(replaced(kRelu, "type=\"Relu\"", "type=\"Frobnicate\""),
                      {"layer 'relu' (id 1, type Frobnicate, line 8)", "unknown op type 'Frobnicate'",
                       "op set does not have it"}));
}

TEST_F(IrErrors, KnownOpWithUnknownVersion) {
    EXPECT_TRUE(fails(replaced(kRelu, "type=\"Relu\" version=\"opset1\"", "type=\"Relu\" version=\"opset99\""),
                      {"layer 'relu' (id 1, type Relu", "op 'Relu' has no version 'opset99'",
                       "known versions: opset1"}));
}

TEST_F(IrErrors, MissingBin) {
    const std::string path = dir_.write("m.xml", kAddConst);
    EXPECT_TRUE(throws_model_error([&] { read_ir(path); },
                                   {path, "layer 'c' (id 1, type Const", dir_.path("m.bin"),
                                    "cannot open the weights file", "No such file"}));
    // An explicit bin_path is the one named.
    EXPECT_TRUE(throws_model_error([&] { read_ir(path, dir_.path("other.bin")); }, {dir_.path("other.bin")}));
}

TEST_F(IrErrors, BinShorterThanTheConstantNeeds) {
    const std::vector<float> two = {1.f, 2.f};
    EXPECT_TRUE(fails(kAddConst,
                      {"layer 'c' (id 1, type Const", "needs bytes 0..16", dir_.path("m.bin"), "only 8 bytes long",
                       "truncated"},
                      &two));
}

TEST_F(IrErrors, OffsetPastTheEndOfTheBin) {
    EXPECT_TRUE(fails(replaced(kAddConst, "offset=\"0\"", "offset=\"64\""),
                      {"layer 'c'", "offset 64 lies past the end of " + dir_.path("m.bin") + " (16 bytes)"},
                      &kFourFloats));
}

TEST_F(IrErrors, OffsetPlusSizePastTheEnd) {
    EXPECT_TRUE(fails(replaced(kAddConst, "offset=\"0\"", "offset=\"8\""),
                      {"layer 'c'", "needs bytes 8..24", "only 16 bytes long"}, &kFourFloats));
}

TEST_F(IrErrors, ConstantSizeDisagreesWithTypeAndShape) {
    EXPECT_TRUE(fails(replaced(kAddConst, "size=\"16\"", "size=\"12\""),
                      {"layer 'c' (id 1, type Const", "size=12 bytes disagrees with element_type f32 x shape [4]",
                       "needs 16 bytes"},
                      &kFourFloats));
}

TEST_F(IrErrors, EdgeFromAMissingLayer) {
    EXPECT_TRUE(fails(replaced(kRelu, "from-layer=\"0\"", "from-layer=\"42\""),
                      {"<edge> at line 17", "starts at layer 42, which does not exist"}));
}

TEST_F(IrErrors, EdgeToAMissingLayer) {
    EXPECT_TRUE(fails(replaced(kRelu, "to-layer=\"2\"", "to-layer=\"9\""),
                      {"<edge> at line 18", "ends at layer 9, which does not exist"}));
}

TEST_F(IrErrors, EdgeToAMissingPort) {
    EXPECT_TRUE(fails(replaced(kRelu, "to-layer=\"1\" to-port=\"0\"", "to-layer=\"1\" to-port=\"5\""),
                      {"ends at port 5 of layer 'relu' (id 1, type Relu", "no such input port (input ports: 0)"}));
}

TEST_F(IrErrors, EdgeFromAMissingPort) {
    // Port 0 of relu exists but is an input port.
    EXPECT_TRUE(fails(replaced(kRelu, "from-layer=\"1\" from-port=\"1\"", "from-layer=\"1\" from-port=\"0\""),
                      {"starts at port 0 of layer 'relu'", "no such output port (output ports: 1)"}));
}

TEST_F(IrErrors, DanglingInputPort) {
    EXPECT_TRUE(fails(replaced(kRelu, "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\"/>", ""),
                      {"layer 'relu' (id 1, type Relu", "input port 0 has no edge",
                       "to-layer=\"1\" to-port=\"0\""}));
}

TEST_F(IrErrors, TwoEdgesIntoOneInputPort) {
    const std::string xml =
        replaced(kAddConst, "<edge from-layer=\"1\" from-port=\"0\" to-layer=\"2\" to-port=\"1\"/>",
                 "<edge from-layer=\"1\" from-port=\"0\" to-layer=\"2\" to-port=\"0\"/>");
    EXPECT_TRUE(fails(xml, {"<edge> at line 26", "feeds input port 0 of layer 'sum' (id 2, type Add",
                            "which the <edge> at line 25 already feeds", "an input port takes exactly one edge"},
                      &kFourFloats));
}

TEST_F(IrErrors, Cycle) {
    // relu feeds sum, sum feeds relu.
    std::string xml = replaced(kAddConst, "<edge from-layer=\"1\" from-port=\"0\" to-layer=\"2\" to-port=\"1\"/>",
                               "<edge from-layer=\"4\" from-port=\"1\" to-layer=\"2\" to-port=\"1\"/>"
                               "<edge from-layer=\"2\" from-port=\"2\" to-layer=\"4\" to-port=\"0\"/>");
    xml = replaced(xml, "  </layers>", R"(    <layer id="4" name="loop" type="Relu" version="opset1">
      <input><port id="0" precision="FP32"><dim>1</dim><dim>4</dim></port></input>
      <output><port id="1" precision="FP32"><dim>1</dim><dim>4</dim></port></output>
    </layer>
  </layers>)");
    EXPECT_TRUE(fails(xml, {"the layers form a cycle", "'sum' (id 2, Add) -> 'loop' (id 4, Relu) -> 'sum'",
                            "must be a directed acyclic graph"},
                      &kFourFloats));
}

TEST_F(IrErrors, DeclaredOutputShapeContradictsInference) {
    const std::string xml = replaced(kRelu, "<port id=\"1\" precision=\"FP32\"><dim>1</dim><dim>4</dim>",
                                     "<port id=\"1\" precision=\"FP32\"><dim>1</dim><dim>5</dim>");
    EXPECT_TRUE(fails(xml, {"layer 'relu' (id 1, type Relu", "output port 1 is declared with shape [1,5]",
                            "shape inference gives [1,4]"}));
}

TEST_F(IrErrors, DeclaredOutputRankContradictsInference) {
    const std::string xml = replaced(kRelu, "<port id=\"1\" precision=\"FP32\"><dim>1</dim><dim>4</dim>",
                                     "<port id=\"1\" precision=\"FP32\"><dim>4</dim>");
    EXPECT_TRUE(fails(xml, {"layer 'relu'", "declared with shape [4]", "gives [1,4]"}));
}

TEST_F(IrErrors, DeclaredPrecisionContradictsInference) {
    const std::string xml = replaced(kRelu, "<port id=\"1\" precision=\"FP32\">", "<port id=\"1\" precision=\"FP16\">");
    EXPECT_TRUE(fails(xml, {"layer 'relu'", "output port 1 is declared FP16 but the op produces f32"}));
}

TEST_F(IrErrors, BadElementType) {
    EXPECT_TRUE(fails(replaced(kRelu, "element_type=\"f32\"", "element_type=\"f33\""),
                      {"layer 'x' (id 0, type Parameter", "bad element_type 'f33'", "expected one of f32"}));
}

TEST_F(IrErrors, BadConstantElementType) {
    EXPECT_TRUE(fails(replaced(kAddConst, "<data element_type=\"f32\"", "<data element_type=\"float\""),
                      {"layer 'c'", "bad element_type 'float'"}, &kFourFloats));
}

TEST_F(IrErrors, BadPrecision) {
    EXPECT_TRUE(fails(replaced(kRelu, "<port id=\"0\" precision=\"FP32\">", "<port id=\"0\" precision=\"FP33\">"),
                      {"layer 'x'", "port 0 has an unknown precision 'FP33'", "expected one of FP32"}));
}

TEST_F(IrErrors, NonNumericPortDim) {
    EXPECT_TRUE(fails(replaced(kRelu, "<dim>4</dim></port></input>", "<dim>four</dim></port></input>"),
                      {"layer 'relu'", "port 0 has a non-numeric dim 'four'", "line 9"}));
}

TEST_F(IrErrors, NonNumericShapeDim) {
    EXPECT_TRUE(fails(replaced(kRelu, "shape=\"1,4\"", "shape=\"1,x4\""),
                      {"layer 'x' (id 0, type Parameter", "shape '1,x4' has a non-numeric dim 'x4'"}));
}

TEST_F(IrErrors, DynamicConstantShape) {
    EXPECT_TRUE(fails(replaced(kAddConst, "shape=\"4\" offset", "shape=\"?\" offset"),
                      {"layer 'c'", "a Constant must have a static shape"}, &kFourFloats));
}

TEST_F(IrErrors, DuplicateLayerId) {
    EXPECT_TRUE(fails(replaced(kRelu, "<layer id=\"2\"", "<layer id=\"1\""),
                      {"layer id 1 is also used by layer 'relu'", "must be unique"}));
}

TEST_F(IrErrors, InferenceErrorNamesTheLayer) {
    // Add of [1,4] and [3] does not broadcast: the model's message, plus the layer's id and line.
    std::string xml = replaced(kAddConst, "shape=\"4\" offset=\"0\" size=\"16\"", "shape=\"3\" offset=\"0\" size=\"12\"");
    xml = replaced(xml, "<output><port id=\"0\" precision=\"FP32\"><dim>4</dim>",
                   "<output><port id=\"0\" precision=\"FP32\"><dim>3</dim>");
    EXPECT_TRUE(fails(xml, {"node 'sum' (Add-opset1)", "[layer 'sum' (id 2, type Add, line 12)]", "re-export"}, &kFourFloats));
}

TEST_F(IrErrors, MissingOpAttribute) {
    EXPECT_TRUE(fails(replaced(kRelu, "<data shape=\"1,4\" element_type=\"f32\"/>", "<data shape=\"1,4\"/>"),
                      {"layer 'x'", "<data> has no element_type"}));
}

}  // namespace
}  // namespace mosaic::ir::test
