// Reference kernels of the elementwise group. (Filled in by the op-set work.)
#include "kernel_groups.hpp"

namespace mosaic::reference {

void register_elementwise_kernels(KernelRegistry&) {}

}  // namespace mosaic::reference
