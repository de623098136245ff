// Op schemas: what the framework knows about each op of the op set: the IR versions that name it,
// how many inputs it takes, and its type and shape inference. Shape inference lives here, in the
// framework, so plugins receive graphs whose shapes and element types are already known.
//
// One file per op group (ops/<group>.cpp) registers its schemas through register_<group>_ops().
#pragma once

#include <mosaic/attributes.hpp>
#include <mosaic/element_type.hpp>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mosaic::ops {

// Raised by an infer function; the caller prefixes the node's name, type and version.
class InferError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct PortInfo {
    ElementType type = ElementType::undefined;
    Shape shape;
};

// The value of a tensor known at model-build time: a Constant's data, or a small result folded
// from constants (a ShapeOf, a Concat of shape pieces, ...). Shape inference of value-dependent
// inputs (Reshape's target shape, Broadcast's shape, Range's bounds...) reads these.
struct KnownValue {
    ElementType type = ElementType::undefined;
    Shape shape;
    const void* data = nullptr;           // points into the Constant's buffer or into `storage`
    std::shared_ptr<const void> storage;  // owns folded values; keeps the buffer alive

    // Element-wise conversions, for any integer, boolean or floating type.
    std::vector<int64_t> as_ints() const;
    std::vector<double> as_floats() const;
};

class InferContext {
public:
    InferContext(const Attributes& attrs, std::vector<PortInfo> inputs,
                 std::vector<const KnownValue*> values)
        : attrs_(attrs), inputs_(std::move(inputs)), values_(std::move(values)) {}

    const Attributes& attrs() const { return attrs_; }
    size_t input_count() const { return inputs_.size(); }
    const PortInfo& input(size_t i) const { return inputs_.at(i); }
    ElementType input_type(size_t i) const { return inputs_.at(i).type; }
    const Shape& input_shape(size_t i) const { return inputs_.at(i).shape; }

    // The value of input i when known at build time, else nullptr.
    const KnownValue* input_value(size_t i) const { return i < values_.size() ? values_[i] : nullptr; }

    // The value of input i as integers; throws InferError ("input i (what) must be a constant")
    // when it is not known at build time.
    std::vector<int64_t> const_ints(size_t i, std::string_view what) const;
    std::vector<double> const_floats(size_t i, std::string_view what) const;

    [[noreturn]] void fail(const std::string& message) const { throw InferError(message); }
    void check(bool condition, const std::string& message) const {
        if (!condition) fail(message);
    }

private:
    const Attributes& attrs_;
    std::vector<PortInfo> inputs_;
    std::vector<const KnownValue*> values_;
};

using InferFn = std::function<std::vector<PortInfo>(const InferContext&)>;

struct OpSchema {
    std::string type;                   // "Convolution"
    std::vector<std::string> versions;  // IR versions naming this op: {"opset1"}, {"opset1", "opset8"}
    size_t min_inputs = 0;
    size_t max_inputs = 0;
    InferFn infer;
    // Whether the framework may fold the op when all its inputs are known; false for ops whose
    // results are large or random. Folding is limited to small results (see shape_inference.cpp).
    bool foldable = true;
};

class OpRegistry {
public:
    void add(OpSchema schema);
    const OpSchema* find(std::string_view type, std::string_view version) const;
    // Whether any version of `type` exists, to tell "unknown op" from "unknown version".
    bool has_type(std::string_view type) const;
    std::vector<std::string> versions_of(std::string_view type) const;
    // The version with the newest semantics (the highest opset number), or "" for an unknown type.
    std::string latest_version(std::string_view type) const;
    const std::vector<OpSchema>& all() const { return schemas_; }

    // The registry of every op in the op set, built once.
    static const OpRegistry& instance();

private:
    std::vector<OpSchema> schemas_;
};

// Group registration functions, each defined in its own file.
void register_graph_ops(OpRegistry&);          // Parameter, Constant, Result (framework core)
void register_elementwise_ops(OpRegistry&);    // ops/elementwise*.cpp, reductions
void register_nn_ops(OpRegistry&);             // ops/nn*.cpp
void register_data_movement_ops(OpRegistry&);  // ops/data_movement*.cpp

// Helpers shared by infer functions.
// numpy-style broadcast of two shapes; fails with both shapes in the message.
Shape broadcast_shapes(const InferContext& ctx, const Shape& a, const Shape& b);
// Normalises a possibly negative axis for a given rank; fails when out of range.
int64_t normalize_axis(const InferContext& ctx, int64_t axis, int64_t rank, std::string_view what = "axis");

}  // namespace mosaic::ops
