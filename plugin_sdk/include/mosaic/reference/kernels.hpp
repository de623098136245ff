// Reference kernels: plain, obviously correct implementations of every op in Mosaic's op set.
// The REFERENCE plugin runs them, the framework folds constant shape subgraphs with them, and a
// vendor may reuse them as a fallback. Link Mosaic::reference_kernels.
//
// Contract for a kernel:
//  - inputs and outputs have the element types and static shapes that the framework's shape
//    inference gave the node; output buffers are allocated by the caller and may be uninitialised;
//  - f16 and bf16 never reach a kernel: run_reference_kernel() widens them to f32 and narrows the
//    results back, so a kernel handles f32, f64 and the integer and boolean types it supports;
//  - a kernel throws std::runtime_error (or AttributeError) with a message that says what is wrong;
//    it never reads or writes outside the given buffers;
//  - kernels are stateless and safe to call from several threads at once.
#pragma once

#include <mosaic/attributes.hpp>
#include <mosaic/element_type.hpp>
#include <mosaic/tensor_view.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mosaic::reference {

using mosaic::ConstTensorView;
using mosaic::TensorView;

struct KernelArgs {
    std::string_view op_type;  // e.g. "Convolution"
    std::string_view version;  // e.g. "opset1"
    const Attributes& attrs;
    std::vector<ConstTensorView> inputs;
    std::vector<TensorView> outputs;
};

using Kernel = void (*)(const KernelArgs&);

// The kernel for an op type at an IR version ("opset1", "opset8", ...), or nullptr.
Kernel find_kernel(std::string_view op_type, std::string_view version);

// Every (type, version) pair with a kernel, for SUPPORTED_OPS reporting and tests.
std::vector<std::pair<std::string, std::string>> kernel_list();

// Runs the kernel for `args`, widening f16/bf16 inputs to f32 and narrowing f32 results back to
// f16/bf16 outputs first. Throws std::runtime_error when no kernel exists.
void run_reference_kernel(const KernelArgs& args);

// Registration, one function per kernel group (a file in reference/src/<group>.cpp).
class KernelRegistry {
public:
    void add(std::string type, std::vector<std::string> versions, Kernel kernel);
    Kernel find(std::string_view type, std::string_view version) const;
    const std::vector<std::pair<std::pair<std::string, std::string>, Kernel>>& all() const { return kernels_; }

private:
    std::vector<std::pair<std::pair<std::string, std::string>, Kernel>> kernels_;
};

}  // namespace mosaic::reference
