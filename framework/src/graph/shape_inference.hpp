// Drives op schemas over a graph: gathers each node's input types, shapes and known values, runs
// the node's infer function, and folds small constant subgraphs (ShapeOf -> Gather -> Concat ->
// Reshape and the like) with the reference kernels so value-dependent shapes resolve.
#pragma once

#include <mosaic/model.hpp>

#include "ops/op_schema.hpp"

#include <map>
#include <memory>
#include <utility>

namespace mosaic {

// "1,3,224,224"; dynamic dims as "?" (IR v11 style). An empty shape (a scalar) is "".
std::string shape_attr_text(const Shape& shape);

class ShapeInference {
public:
    // Infers `node`'s outputs; its inputs' producers must already have been inferred by this object
    // or carry output types and shapes. Throws ModelError naming the node.
    std::vector<ops::PortInfo> infer(const Node& node);
    // infer(), then stores the types and shapes on the node's output ports.
    void apply(Node& node);

    // The value of an output known at build time, or nullptr.
    const ops::KnownValue* known_value(const Output& output) const;

private:
    void fold(const Node& node, const ops::OpSchema& schema, const std::vector<ops::PortInfo>& outputs,
              const std::vector<const ops::KnownValue*>& input_values);
    // Folds a Gather of static dimensions out of the ShapeOf of a tensor that has dynamic ones;
    // false where `node` is not one.
    bool fold_static_dims(const Node& node, const std::vector<ops::PortInfo>& outputs,
                          const std::vector<const ops::KnownValue*>& input_values);

    std::map<std::pair<const Node*, size_t>, std::shared_ptr<ops::KnownValue>> values_;
};

}  // namespace mosaic
