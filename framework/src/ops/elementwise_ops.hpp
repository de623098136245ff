// Shared pieces of the elementwise op schemas: the registration function of each file and the
// checks their infer functions have in common (element types, auto_broadcast, attributes).
#pragma once

#include "ops/op_schema.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace mosaic::ops {

void register_binary_elementwise_ops(OpRegistry&);  // elementwise_binary.cpp: arithmetic, comparison, logical, Select, FakeQuantize
void register_unary_elementwise_ops(OpRegistry&);   // elementwise_unary.cpp: unary math, activations, Convert
void register_reduction_ops(OpRegistry&);           // reduction.cpp

// numpy broadcast of two shapes that may hold dynamic (-1) dims; fails naming both shapes.
Shape numpy_broadcast(const InferContext& ctx, const Shape& a, const Shape& b);

// The output shape of an elementwise op over `inputs` under its auto_broadcast attribute:
// "numpy" (the default) or "none" (alias "explicit": all shapes must be equal).
Shape elementwise_shape(const InferContext& ctx, const std::vector<size_t>& inputs);

// Input i's element type, after checking it is one the op accepts.
ElementType require_numeric(const InferContext& ctx, size_t i);  // any type but boolean
ElementType require_integer_or_boolean(const InferContext& ctx, size_t i);  // the bitwise ops' types
ElementType require_float(const InferContext& ctx, size_t i);    // f32, f16, bf16, f64
ElementType require_boolean(const InferContext& ctx, size_t i);
// Checks input j has the same element type as input i.
void require_same_type(const InferContext& ctx, size_t i, size_t j);
// Checks input i holds exactly one element (a scalar or a 1-element 1D tensor); `what` names it.
void require_single_value(const InferContext& ctx, size_t i, std::string_view what);

// Attribute getters that report a malformed value through ctx.fail.
double float_attr(const InferContext& ctx, std::string_view name);
double float_attr(const InferContext& ctx, std::string_view name, double fallback);
bool bool_attr(const InferContext& ctx, std::string_view name, bool fallback);
// A string attribute, lower-cased, that must be one of `allowed`.
std::string enum_attr(const InferContext& ctx, std::string_view name, const std::string& fallback,
                      const std::vector<std::string>& allowed);

}  // namespace mosaic::ops
