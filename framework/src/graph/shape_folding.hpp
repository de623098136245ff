// Shape arithmetic as constants. Once a model's input shapes are set,
// what its exporter computed from them (Shape -> Slice -> Concat into a Resize's sizes, a
// Reshape's target) is known: shape inference folded it. Devices see those values as Constants, so
// every device takes the op that reads them as it takes an exported static model's (a GPU kernel
// needs a Resize's sizes constant), and none spends a kernel on shape arithmetic.
#pragma once

#include <mosaic/model.hpp>

namespace mosaic {

// Replaces every op computed from a tensor's shape whose outputs shape inference knows (small
// folded values: shapes, sizes, indices) by Constants of those values under the op's name and
// tensor names, then removes the ops no Result depends on any more (a ShapeOf's input read by
// nothing else). Applied to every model a device compiles: a dynamic model's specializations, and a
// static one (a model read dynamic and reshaped has the same arithmetic).
void fold_shape_computations(Model& model);

}  // namespace mosaic
