// Reference kernels of the data_movement group, one file per concept (data_movement_*.cpp).
#include "kernel_groups.hpp"

#include "data_movement_kernels.hpp"

namespace mosaic::reference {

void register_data_movement_kernels(KernelRegistry& r) {
    register_concat_split_kernels(r);
    register_reshape_kernels(r);
    register_permute_kernels(r);
    register_gather_kernels(r);
    register_slice_kernels(r);
    register_pad_kernels(r);
    register_broadcast_kernels(r);
    register_shape_kernels(r);
    register_scatter_kernels(r);
    register_index_kernels(r);
    register_einsum_kernels(r);
    register_unique_kernels(r);
}

}  // namespace mosaic::reference
