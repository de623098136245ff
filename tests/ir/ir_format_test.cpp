// The small conventions of the IR format: dims, shape attributes, tensor-name lists, op type
// spellings and precision names.
#include "readers/ir/ir_format.hpp"

#include <gtest/gtest.h>

namespace mosaic::ir {
namespace {

TEST(IrFormat, Dims) {
    EXPECT_EQ(parse_dim("224"), 224);
    EXPECT_EQ(parse_dim(" 0\n"), 0);
    EXPECT_EQ(parse_dim("-1"), kDynamicDim);
    EXPECT_EQ(parse_dim("?"), kDynamicDim);
    EXPECT_EQ(parse_dim("1..10"), kDynamicDim);
    EXPECT_EQ(parse_dim("..10"), kDynamicDim);
    EXPECT_EQ(parse_dim("2.."), kDynamicDim);
    EXPECT_EQ(parse_dim("7..7"), 7);
    EXPECT_FALSE(parse_dim("-2"));
    EXPECT_FALSE(parse_dim("abc"));
    EXPECT_FALSE(parse_dim("1.5"));
    EXPECT_FALSE(parse_dim("..."));
    EXPECT_FALSE(parse_dim(""));
}

TEST(IrFormat, ShapeAttributes) {
    std::string bad;
    EXPECT_EQ(parse_shape_attr("1,3,224,224", &bad), (Shape{1, 3, 224, 224}));
    EXPECT_EQ(parse_shape_attr("", &bad), Shape{});
    EXPECT_EQ(parse_shape_attr("?,3,-1,1..4", &bad), (Shape{-1, 3, -1, -1}));
    EXPECT_FALSE(parse_shape_attr("1,,3", &bad));
    EXPECT_EQ(bad, "");
    EXPECT_FALSE(parse_shape_attr("1,N,3", &bad));
    EXPECT_EQ(bad, "N");
}

TEST(IrFormat, TensorNames) {
    EXPECT_EQ(split_tensor_names("a,b"), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(split_tensor_names("x\\,y,z"), (std::vector<std::string>{"x,y", "z"}));
    EXPECT_EQ(split_tensor_names(""), std::vector<std::string>{});
    EXPECT_EQ(split_tensor_names("a,,b,"), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(split_tensor_names("c:\\path"), (std::vector<std::string>{"c:\\path"}));

    const std::vector<std::string> names = {"input:0", "with,comma", "plain"};
    EXPECT_EQ(join_tensor_names(names), "input:0,with\\,comma,plain");
    EXPECT_EQ(split_tensor_names(join_tensor_names(names)), names);
}

TEST(IrFormat, OpTypeSpellings) {
    EXPECT_EQ(op_type_from_ir("Const"), "Constant");
    EXPECT_EQ(op_type_from_ir("Constant"), "Constant");
    EXPECT_EQ(op_type_from_ir("ReLU"), "Relu");
    EXPECT_EQ(op_type_from_ir("SoftMax"), "Softmax");
    EXPECT_EQ(op_type_from_ir("Convolution"), "Convolution");
    EXPECT_EQ(op_type_to_ir("Constant"), "Const");
    EXPECT_EQ(op_type_to_ir("PRelu"), "PReLU");
    EXPECT_EQ(op_type_to_ir("MatMul"), "MatMul");
}

TEST(IrFormat, Precisions) {
    for (ElementType t : {ElementType::f32, ElementType::f16, ElementType::bf16, ElementType::f64, ElementType::i8,
                          ElementType::u8, ElementType::i16, ElementType::u16, ElementType::i32, ElementType::u32,
                          ElementType::i64, ElementType::u64, ElementType::boolean})
        EXPECT_EQ(element_type_from_string(precision_name(t)), t) << precision_name(t);
    EXPECT_STREQ(precision_name(ElementType::f32), "FP32");
    EXPECT_STREQ(precision_name(ElementType::boolean), "BOOL");
    EXPECT_TRUE(is_unspecified_precision("UNSPECIFIED"));
    EXPECT_FALSE(is_unspecified_precision("FP32"));
}

}  // namespace
}  // namespace mosaic::ir
