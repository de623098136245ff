// What executors and fusions ask of the graph at compile time. Small constants: the scalars that
// parameterise an op (a Swish beta, a Clip bound, a LayerNorm epsilon, the 0.5 of a decomposed
// Gelu) and the integer lists that shape one (reduction axes, a Transpose order); an executor that
// needs one as a constant runs on oneDNN only when it is one, else the reference kernel reads it
// per inference. And the walk along a decomposed pattern (a Gelu, a LayerNorm): the op that alone
// reads a value, and a binary op's other operand.
#pragma once

#include "value_table.hpp"

#include <mosaic/sdk/graph.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mosaic::cpu_plugin {

// `v` as a float, when it is a one-element f32 constant (of any rank); false for kNoValue.
bool scalar_constant(const ValueTable& values, ValueId v, float& out);

// `v` is a one-element f32 constant within a relative `tolerance` of `expected` (graphs exported
// from other frameworks write sqrt(2) and 1/sqrt(2) with whatever rounding they had).
bool scalar_constant_near(const ValueTable& values, ValueId v, double expected, double tolerance = 1e-6);

// `v` as integers, when it is an integer constant of rank 0 or 1.
bool int_constant(const ValueTable& values, ValueId v, std::vector<int64_t>& out);

// The node of `type` (with one output) that alone reads `v`, when `v` is an intermediate tensor:
// not a graph output, since a pattern run as one executor never writes its inner tensors.
// SIZE_MAX otherwise.
size_t sole_reader(const sdk::GraphView& graph, const ValueTable& values, ValueId v, const char* type);

// What two-input `node` reads besides `v`, when it reads `v` exactly once; kNoValue otherwise.
ValueId other_operand(const sdk::GraphView& graph, const ValueTable& values, size_t node, ValueId v);

// `s` in lower case: attribute words (auto_pad, approximation_mode, eps_mode, activations) are
// matched whatever case the model wrote them in, as the reference kernels do.
std::string lower_case(std::string s);

// `axes` (negative ones counting from the end) as a sorted list of distinct axes of a tensor of
// `rank`, or false when one is out of range or repeated.
bool normalize_axes(std::vector<int64_t>& axes, size_t rank);

}  // namespace mosaic::cpu_plugin
