// Registration functions of the kernel groups, each defined in its own file.
#pragma once

#include <mosaic/reference/kernels.hpp>

namespace mosaic::reference {

void register_elementwise_kernels(KernelRegistry&);    // elementwise*.cpp, reductions
void register_nn_kernels(KernelRegistry&);             // nn*.cpp
void register_data_movement_kernels(KernelRegistry&);  // data_movement*.cpp

}  // namespace mosaic::reference
