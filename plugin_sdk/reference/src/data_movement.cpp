// Reference kernels of the data_movement group. (Filled in by the op-set work.)
#include "kernel_groups.hpp"

namespace mosaic::reference {

void register_data_movement_kernels(KernelRegistry&) {}

}  // namespace mosaic::reference
