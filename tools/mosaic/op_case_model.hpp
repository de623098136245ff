// An op case (op_cases.hpp) as a one-op model, and its inputs set on a request: the form every
// runner that goes through Core uses (the REFERENCE, CPU and GPU op tests, `mosaic verify-plugin`).
#pragma once

#include "tools/mosaic/op_cases.hpp"

#include <mosaic/mosaic.hpp>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace mosaic::op_cases {

// The node the case is about, by its friendly name.
inline constexpr const char* kOpUnderTest = "op_under_test";

// Constant inputs become Constants, the others parameters "in<i>"; the outputs are results
// "out<o>". Throws ModelError (naming kOpUnderTest) for a case the op refuses.
inline std::shared_ptr<Model> op_case_model(const OpCaseSpec& c) {
    ModelBuilder b(c.id);
    std::vector<Output> inputs;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        const auto& in = c.inputs[i];
        inputs.push_back(in.is_const ? b.constant(in.type, in.shape, Buffer::copy_of(in.bytes.data(), in.bytes.size()))
                                     : b.parameter("in" + std::to_string(i), in.type, in.shape));
    }
    Output op = b.op(c.op, inputs, c.attrs, kOpUnderTest, c.version);
    for (size_t o = 0; o < c.outputs.size(); ++o) b.result(ModelBuilder::node(op)->output(o), "out" + std::to_string(o));
    return b.build();
}

// Sets the case's non-constant inputs on a request for op_case_model(c).
inline void set_op_case_inputs(InferRequest& request, const OpCaseSpec& c) {
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        if (c.inputs[i].is_const) continue;
        Tensor t(c.inputs[i].type, c.inputs[i].shape);
        if (!c.inputs[i].bytes.empty()) std::memcpy(t.data(), c.inputs[i].bytes.data(), c.inputs[i].bytes.size());
        request.set_tensor("in" + std::to_string(i), t);
    }
}

}  // namespace mosaic::op_cases
