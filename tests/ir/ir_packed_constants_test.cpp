// Constants of elements below a byte, as optimum-intel and NNCF write compressed weights: u4, i4
// and nf4, two elements to a byte, low half first. The reader unpacks them into a byte per element
// (u8, i8; nf4 into the f32 values its codes stand for), checks their size in half bytes, and
// refuses them where only whole bytes make sense.
#include "ir_test_util.hpp"

namespace mosaic::ir::test {
namespace {

// c (a constant of TYPE, shape SHAPE, SIZE bytes at offset 0) -> Convert to f32 -> out
std::string packed_constant_ir(const std::string& type, const std::string& shape, int size) {
    const std::string dims = shape == "2,3" ? "<dim>2</dim><dim>3</dim>" : "<dim>" + shape + "</dim>";
    const std::string precision = type == "u4" ? "U4" : type == "i4" ? "I4" : "NF4";
    return R"(<?xml version="1.0"?>
<net name="packed" version="11">
  <layers>
    <layer id="0" name="c" type="Const" version="opset1">
      <data element_type=")" + type + R"(" shape=")" + shape + R"(" offset="0" size=")" + std::to_string(size) + R"("/>
      <output><port id="0" precision=")" + precision + R"(">)" + dims + R"(</port></output>
    </layer>
    <layer id="1" name="convert" type="Convert" version="opset1">
      <data destination_type="f32"/>
      <input><port id="0" precision=")" + precision + R"(">)" + dims + R"(</port></input>
      <output><port id="1" precision="FP32">)" + dims + R"(</port></output>
    </layer>
    <layer id="2" name="out" type="Result" version="opset1">
      <input><port id="0" precision="FP32">)" + dims + R"(</port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
    <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
  </edges>
</net>
)";
}

template <typename T>
std::vector<T> constant_values(const Model& m) {
    const Node* c = m.get_op("c");
    const auto& data = *c->constant_data();
    std::vector<T> out(data.size() / sizeof(T));
    std::memcpy(out.data(), data.data(), data.size());
    return out;
}

class IrPackedConstants : public ::testing::Test {
protected:
    std::shared_ptr<Model> read(const std::string& type, const std::string& shape, const std::string& bin) {
        dir_.write("m.bin", bin);
        const int size = static_cast<int>(bin.size());
        return read_ir(dir_.write("m.xml", packed_constant_ir(type, shape, size)));
    }
    TempDir dir_;
};

TEST_F(IrPackedConstants, U4UnpacksLowHalfFirst) {
    // 1 2 | 3 4 | 5 15 as OpenVINO packs them (element 2i in the low half of byte i)
    const auto m = read("u4", "2,3", std::string("\x21\x43\xf5", 3));
    EXPECT_EQ(m->get_op("c")->output_type(0), ElementType::u8);
    EXPECT_EQ(constant_values<uint8_t>(*m), (std::vector<uint8_t>{1, 2, 3, 4, 5, 15}));
}

TEST_F(IrPackedConstants, I4IsSignExtended) {
    const auto m = read("i4", "4", std::string("\x78\x3f", 2));  // -8 7 | -1 3
    EXPECT_EQ(m->get_op("c")->output_type(0), ElementType::i8);
    EXPECT_EQ(constant_values<int8_t>(*m), (std::vector<int8_t>{-8, 7, -1, 3}));
}

TEST_F(IrPackedConstants, AnOddCountTakesAWholeLastByte) {
    const auto m = read("u4", "3", std::string("\xa9\x0b", 2));
    EXPECT_EQ(constant_values<uint8_t>(*m), (std::vector<uint8_t>{9, 10, 11}));
}

TEST_F(IrPackedConstants, Nf4CodesBecomeTheirValues) {
    const auto m = read("nf4", "4", std::string("\x10\x7f", 2));  // codes 0 1 | 15 7
    EXPECT_EQ(m->get_op("c")->output_type(0), ElementType::f32);
    const std::vector<float> values = constant_values<float>(*m);
    ASSERT_EQ(values.size(), 4u);
    EXPECT_EQ(values[0], -1.0f);
    EXPECT_FLOAT_EQ(values[1], -0.6961928f);
    EXPECT_EQ(values[2], 1.0f);
    EXPECT_EQ(values[3], 0.0f);
}

// Written back, the constant is what it was read as: bytes, declared u8.
TEST_F(IrPackedConstants, WrittenBackAsBytes) {
    const auto m = read("u4", "2,3", std::string("\x21\x43\xf5", 3));
    write_ir(*m, dir_.path("again.xml"));
    const auto again = read_ir(dir_.path("again.xml"));
    EXPECT_EQ(constant_values<uint8_t>(*again), (std::vector<uint8_t>{1, 2, 3, 4, 5, 15}));
}

TEST_F(IrPackedConstants, SizeIsCountedInHalfBytes) {
    dir_.write("m.bin", std::string(6, '\0'));
    const std::string xml = packed_constant_ir("u4", "2,3", 6);
    EXPECT_TRUE(throws_model_error([&] { read_ir(dir_.write("m.xml", xml)); },
                                   {"layer 'c'", "size=6 bytes disagrees with element_type u4", "needs 3 bytes"}));
}

TEST_F(IrPackedConstants, AParameterCannotBePacked) {
    const std::string xml = R"(<?xml version="1.0"?>
<net name="p" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="4" element_type="u4"/>
      <output><port id="0" precision="U4"><dim>4</dim></port></output>
    </layer>
    <layer id="1" name="out" type="Result" version="opset1">
      <input><port id="0" precision="U4"><dim>4</dim></port></input>
    </layer>
  </layers>
  <edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges>
</net>
)";
    EXPECT_TRUE(throws_model_error([&] { read_ir(dir_.write("p.xml", xml)); },
                                   {"layer 'x'", "element_type 'u4' packs elements below a byte", "only a Constant"}));
}

}  // namespace
}  // namespace mosaic::ir::test
