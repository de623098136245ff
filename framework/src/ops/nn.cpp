// Op schemas of the nn group. (Filled in by the op-set work.)
#include "ops/op_schema.hpp"

namespace mosaic::ops {

void register_nn_ops(OpRegistry&) {}

}  // namespace mosaic::ops
