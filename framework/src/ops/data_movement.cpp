// Op schemas of the data_movement group. (Filled in by the op-set work.)
#include "ops/op_schema.hpp"

namespace mosaic::ops {

void register_data_movement_ops(OpRegistry&) {}

}  // namespace mosaic::ops
