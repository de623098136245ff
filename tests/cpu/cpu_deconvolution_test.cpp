// ConvolutionBackpropData and GroupConvolutionBackpropData on oneDNN's deconvolution: strides,
// explicit pads, dilations, output_shape with same_upper/same_lower, a fused bias and activation;
// output_padding (a negative end pad to oneDNN), a fused bias and activation; each equals REFERENCE
// and names a oneDNN implementation. Filters computed at run time stay on the reference kernel.
#include "cpu/cpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test {
namespace {

struct Case {
    std::string name;
    bool grouped;
    Attributes attrs;
    std::vector<int64_t> output_shape;  // empty: none
};

std::shared_ptr<Model> deconvolution(const Case& c) {
    ModelBuilder b("deconv");
    Output x = b.parameter("x", ElementType::f32, {1, 8, 5, 5});
    Output w = c.grouped ? random_constant(b, {2, 4, 3, 3, 3}, 31, "w") : random_constant(b, {8, 6, 3, 3}, 31, "w");
    std::vector<Output> inputs{x, w};
    if (!c.output_shape.empty()) inputs.push_back(b.constant<int64_t>({2}, c.output_shape));
    Output y = b.op(c.grouped ? "GroupConvolutionBackpropData" : "ConvolutionBackpropData", inputs, c.attrs, "deconv");
    y = b.op("Add", {y, random_constant(b, {1, 6, 1, 1}, 37, "bias")}, {}, "bias_add");
    b.result(b.op("Relu", {y}, {}, "relu"), "y");
    return b.build();
}

Attributes attrs(const std::string& strides, const std::string& pads_begin, const std::string& pads_end,
                 const std::string& auto_pad = "explicit", const std::string& dilations = "1,1",
                 const std::string& output_padding = "0,0") {
    return {{"strides", strides},         {"pads_begin", pads_begin}, {"pads_end", pads_end},
            {"dilations", dilations},     {"auto_pad", auto_pad},     {"output_padding", output_padding}};
}

TEST(CpuDeconvolution, RunsOnOneDnnAndEqualsReference) {
    const std::vector<Case> cases{
        {"stride 1", false, attrs("1,1", "0,0", "0,0"), {}},
        {"stride 2 pads", false, attrs("2,2", "1,1", "1,1"), {}},
        {"dilated", false, attrs("1,1", "1,0", "0,1", "explicit", "2,2"), {}},
        {"output_shape same_upper", false, attrs("2,2", "0,0", "0,0", "same_upper"), {10, 10}},
        {"output_shape same_lower", false, attrs("2,2", "0,0", "0,0", "same_lower"), {9, 9}},
        {"grouped stride 2", true, attrs("2,2", "1,1", "1,1"), {}},
        {"output_padding", false, attrs("2,2", "1,1", "1,1", "explicit", "1,1", "1,1"), {}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const RunResult r = expect_matches_reference(deconvolution(c), {{"x", random_tensor({1, 8, 5, 5}, 3)}});
        ASSERT_EQ(op_records(r.profile).size(), 1u) << "bias and Relu fuse" << contents(r.profile);
        EXPECT_NE(r.profile[0].exec_type, "ref") << contents(r.profile);
    }
}

TEST(CpuDeconvolution, RuntimeFiltersRunOnTheReferenceKernel) {
    ModelBuilder b("runtime_filters");
    Output x = b.parameter("x", ElementType::f32, {1, 4, 3, 3});
    Output w = b.parameter("w", ElementType::f32, {4, 2, 3, 3});
    b.result(b.op("ConvolutionBackpropData", {x, w}, attrs("2,2", "0,0", "0,0"), "deconv"), "y");
    const RunResult r = expect_matches_reference(
        b.build(), {{"x", random_tensor({1, 4, 3, 3}, 5)}, {"w", random_tensor({4, 2, 3, 3}, 6)}});
    ASSERT_NE(record_named(r.profile, "deconv"), nullptr) << contents(r.profile);
    EXPECT_EQ(record_named(r.profile, "deconv")->exec_type, "ref");
}

}  // namespace
}  // namespace mosaic::test
