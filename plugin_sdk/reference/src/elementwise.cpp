// Reference kernels of the elementwise group: arithmetic, comparison, logical, unary math,
// activations, conversion, selection, FakeQuantize and reductions. Each concept lives in its own file.
#include "elementwise_kernels.hpp"

namespace mosaic::reference {

void register_elementwise_kernels(KernelRegistry& r) {
    register_binary_arithmetic_kernels(r);
    register_comparison_logical_kernels(r);
    register_unary_math_kernels(r);
    register_activation_kernels(r);
    register_convert_select_kernels(r);
    register_fake_quantize_kernel(r);
    register_reduction_kernels(r);
}

}  // namespace mosaic::reference
