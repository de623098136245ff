#include <mosaic/reference/kernels.hpp>

#include "kernel_groups.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace mosaic::reference {

void KernelRegistry::add(std::string type, std::vector<std::string> versions, Kernel kernel) {
    for (auto& v : versions) {
        if (find(type, v)) throw std::logic_error("reference kernel " + type + "-" + v + " registered twice");
        kernels_.push_back({{type, std::move(v)}, kernel});
    }
}

Kernel KernelRegistry::find(std::string_view type, std::string_view version) const {
    for (const auto& k : kernels_)
        if (k.first.first == type && k.first.second == version) return k.second;
    return nullptr;
}

namespace {

const KernelRegistry& registry() {
    static const KernelRegistry r = [] {
        KernelRegistry k;
        register_elementwise_kernels(k);
        register_nn_kernels(k);
        register_data_movement_kernels(k);
        return k;
    }();
    return r;
}

bool is_half(ElementType t) { return t == ElementType::f16 || t == ElementType::bf16; }

std::vector<float> widen(ElementType t, const void* data, int64_t n) {
    std::vector<float> out(static_cast<size_t>(n));
    const auto* p = static_cast<const uint16_t*>(data);
    for (int64_t i = 0; i < n; ++i) out[i] = t == ElementType::f16 ? f16_to_f32(p[i]) : bf16_to_f32(p[i]);
    return out;
}

}  // namespace

Kernel find_kernel(std::string_view op_type, std::string_view version) {
    return registry().find(op_type, version);
}

std::vector<std::pair<std::string, std::string>> kernel_list() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& k : registry().all()) out.push_back(k.first);
    return out;
}

namespace {

// Whether a tensor of `shape` holds no element: a dimension is 0 (checked as such, since the
// product of the other dimensions may overflow).
bool holds_nothing(const Shape& shape) { return std::find(shape.begin(), shape.end(), 0) != shape.end(); }

}  // namespace

void run_reference_kernel(const KernelArgs& args) {
    Kernel kernel = find_kernel(args.op_type, args.version);
    if (!kernel)
        throw std::runtime_error("no reference kernel for " + std::string(args.op_type) + "-" +
                                 std::string(args.version));
    // Outputs that hold nothing need no kernel, whatever their other dimensions: a Softmax into
    // [2147483647,64,3,0] looped over its rows for 10 s, and TopK and RoiAlign misread or overflowed
    // on such shapes (all found by fuzzing).
    if (!args.outputs.empty() &&
        std::all_of(args.outputs.begin(), args.outputs.end(), [](const TensorView& o) { return holds_nothing(o.shape); }))
        return;
    bool any_half = false;
    for (const auto& in : args.inputs) any_half |= is_half(in.type);
    for (const auto& out : args.outputs) any_half |= is_half(out.type);
    if (!any_half) return kernel(args);

    // Widen 16-bit floats to f32, run, then narrow: kernels only implement the wide types.
    std::vector<std::vector<float>> wide_in, wide_out;
    wide_in.reserve(args.inputs.size());
    wide_out.reserve(args.outputs.size());
    KernelArgs wide{args.op_type, args.version, args.attrs, args.inputs, args.outputs};
    for (auto& in : wide.inputs)
        if (is_half(in.type)) {
            // An input given by its shape alone (ShapeOf, folded while its input's values are
            // unknown) has no data to widen; the kernel reads only its shape.
            if (in.data) {
                wide_in.push_back(widen(in.type, in.data, in.size()));
                in.data = wide_in.back().data();
            }
            in.type = ElementType::f32;
        }
    std::vector<size_t> narrowed;
    for (size_t i = 0; i < wide.outputs.size(); ++i)
        if (is_half(wide.outputs[i].type)) {
            wide_out.emplace_back(static_cast<size_t>(wide.outputs[i].size()));
            wide.outputs[i].type = ElementType::f32;
            wide.outputs[i].data = wide_out.back().data();
            narrowed.push_back(i);
        }
    kernel(wide);
    for (size_t k = 0; k < narrowed.size(); ++k) {
        const TensorView& dst = args.outputs[narrowed[k]];
        auto* p = dst.as<uint16_t>();
        const auto& src = wide_out[k];
        for (size_t i = 0; i < src.size(); ++i)
            p[i] = dst.type == ElementType::f16 ? f32_to_f16(src[i]) : f32_to_bf16(src[i]);
    }
}

}  // namespace mosaic::reference
