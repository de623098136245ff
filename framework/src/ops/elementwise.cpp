// Op schemas of the elementwise group. (Filled in by the op-set work.)
#include "ops/op_schema.hpp"

namespace mosaic::ops {

void register_elementwise_ops(OpRegistry&) {}

}  // namespace mosaic::ops
