// Reference kernels of the nn group. (Filled in by the op-set work.)
#include "kernel_groups.hpp"

namespace mosaic::reference {

void register_nn_kernels(KernelRegistry&) {}

}  // namespace mosaic::reference
