#include "runtime/gpu_device.hpp"


#include "runtime/gpu_compiled_model.hpp"
#include "runtime/gpu_config.hpp"
#include "ops/op_registry.hpp"

#include <mosaic/reference/constant_folding.hpp>

namespace mosaic::gpu_plugin {

namespace {

namespace sp = sdk::standard_properties;
using sdk::PropertyKind;

// Read-only properties that describe the selected instance (GPU.0 unless DEVICE_ID says otherwise).
bool describes_instance(const std::string& key) {
    return key == "FULL_DEVICE_NAME" || key == "DEVICE_TYPE" || key == "GPU_DEVICE_TOTAL_MEM_SIZE" ||
           key == "GPU_EXECUTION_UNITS_COUNT" || key == "OPTIMIZATION_CAPABILITIES" || key == "AVAILABLE_DEVICES" ||
           key == "GPU_DEVICE_STATUS";
}

// f16 is storage (vload_half/vstore_half, core OpenCL 1.2: every device has them), computed in
// float: only CLBlast, which reads f32 matrices, cannot take part. Refused before anything is built.
void check_precision(const GpuConfig& config, const std::string& name) {
    if (config.precision == "f16" && config.gemm_kernel == "CLBLAST")
        throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED,
                         "INFERENCE_PRECISION_HINT f16 on " + name + " stores tensors as f16, and GPU_GEMM_KERNEL CLBLAST "
                         "multiplies f32 matrices only; set GPU_GEMM_KERNEL to AUTO or TILED, or the precision to f32");
}

}  // namespace

GpuDevice::GpuDevice(const std::string& name)
    : Device(name, {sp::full_device_name(""),
                    sp::perf_count(),
                    sp::performance_hint(),
                    sp::num_streams(1),
                    sp::inference_precision_hint({"f32", "f16"}),
                    sp::optimal_number_of_infer_requests(2),
                    {"DEVICE_ID", PropertyKind::string, "0", {}, false, 0, "the instance compiled on: GPU.1 sets 1"},
                    {"CACHE_DIR", PropertyKind::string, "", {}, false, 0,
                     "folder of OpenCL program binaries reused by later compiles (empty: none)"},
                    {"GPU_ALLOW_CPU_FALLBACK", PropertyKind::boolean, true, {}, false, 0,
                     "with no OpenCL GPU, run on an OpenCL CPU device (PoCL)"},
                    {"GPU_GEMM_KERNEL", PropertyKind::choice, "AUTO", {"AUTO", "TILED", "CLBLAST"}, false, 0,
                     "GEMMs of convolutions and MatMuls: Mosaic's register-tiled kernel (AUTO on OpenCL CPU devices) "
                     "or CLBlast (AUTO on GPUs)"},
                    {"GPU_HALF_CONVERSIONS", PropertyKind::choice, "AUTO", {"AUTO", "BUILTIN", "BITS"}, false, 0,
                     "under INFERENCE_PRECISION_HINT f16, how halves load and store: OpenCL's vload_half/vstore_half "
                     "(BUILTIN, AUTO on GPUs) or integer arithmetic on vectors (BITS, AUTO on OpenCL CPU devices, "
                     "whose builtins convert lane by lane)"},
                    {"GPU_ZERO_COPY", PropertyKind::boolean, true, {}, false, 0,
                     "on a device sharing host memory (DEVICE_TYPE integrated), use the caller's tensors and the "
                     "weights in place; NO copies them to device memory as on a discrete GPU, each copy profiled"},
                    {"DEVICE_TYPE", PropertyKind::string, "", {}, true, 0, "integrated or discrete"},
                    {"DEVICE_MEMORY_LIMIT", PropertyKind::integer, 0, {}, false, 0,
                     "bytes Mosaic may hold on the instance (weights, requests' buffers, the host's buffers); "
                     "allocations beyond it fail naming it; 0: the device's global memory"},
                    {"GPU_DEVICE_TOTAL_MEM_SIZE", PropertyKind::integer, 0, {}, true, 0, "global memory, bytes"},
                    {"GPU_EXECUTION_UNITS_COUNT", PropertyKind::integer, 0, {}, true, 0,
                     "OpenCL compute units (a GPU's multiprocessors, an OpenCL CPU device's cores)"},
                    {"OPTIMIZATION_CAPABILITIES", PropertyKind::object, nlohmann::json::array(), {}, true, 0,
                     "FP32 and FP16 (INFERENCE_PRECISION_HINT f16: f16 storage, f32 arithmetic, on every OpenCL 1.2 device)"},
                    {"AVAILABLE_DEVICES", PropertyKind::object, nlohmann::json::array(), {}, true, 0, "instance ids"},
                    {"GPU_DEVICE_STATUS", PropertyKind::string, "", {}, true, 0,
                     "why there is no instance, or which OpenCL device the instances are"}}) {}

bool GpuDevice::allow_cpu_fallback() const { return properties().get("GPU_ALLOW_CPU_FALLBACK").get<bool>(); }

std::vector<std::string> GpuDevice::device_ids() const {
    std::vector<std::string> ids;
    const size_t n = discover_devices().instances(allow_cpu_fallback()).size();
    for (size_t i = 0; i < n; ++i) ids.push_back(std::to_string(i));
    return ids;
}

nlohmann::json GpuDevice::get_property(const std::string& key) const {
    if (!describes_instance(key)) return properties().get(key);
    const ClDiscovery& found = discover_devices();
    const bool fallback = allow_cpu_fallback();
    const auto& instances = found.instances(fallback);
    if (key == "AVAILABLE_DEVICES") return device_ids();
    if (key == "GPU_DEVICE_STATUS") {
        if (instances.empty()) return "no instance: " + found.why_none(fallback);
        return std::to_string(instances.size()) + (instances.front().is_cpu_fallback ? " OpenCL CPU device(s) standing in for a GPU" : " OpenCL GPU device(s)");
    }
    if (instances.empty()) {
        if (key == "FULL_DEVICE_NAME") return "no OpenCL device (" + found.why_none(fallback) + ")";
        if (key == "OPTIMIZATION_CAPABILITIES") return nlohmann::json::array();
        if (key == "GPU_DEVICE_TOTAL_MEM_SIZE" || key == "GPU_EXECUTION_UNITS_COUNT") return 0;
        return "";
    }
    const GpuConfig config = GpuConfig::from(properties().merged(nlohmann::json::object()));
    const ClDeviceInfo& d = select_instance(config, name());
    if (key == "FULL_DEVICE_NAME") return d.full_name();
    if (key == "DEVICE_TYPE") return d.device_type();
    if (key == "GPU_DEVICE_TOTAL_MEM_SIZE") return d.global_memory_bytes;
    if (key == "GPU_EXECUTION_UNITS_COUNT") return d.compute_units;
    return nlohmann::json::array({"FP32", "FP16"});
}

std::string GpuDevice::unsupported_reason(const sdk::GraphView& graph, size_t node, const ClDeviceInfo& device,
                                          const std::vector<bool>& compile_time) {
    const std::string type = graph.type(node);
    if (type == "Parameter" || type == "Constant" || type == "Result") return "";
    if (compile_time[node]) return "";  // folded when compiled (value_table.hpp): no kernel runs it
    if (computes_nothing(graph, node)) return "";
    const OpEntry* op = find_op(type);
    if (!op) return "the GPU has no kernel for " + type;
    return op->check(graph, node, device);
}

std::vector<sdk::Device::Support> GpuDevice::query(const sdk::GraphView& graph, const nlohmann::json& config) {
    const GpuConfig c = GpuConfig::from(config);
    const ClDeviceInfo& device = select_instance(c, name());
    check_precision(c, name());
    std::vector<Support> result(graph.node_count());
    const std::vector<bool> compile_time = reference::compile_time_nodes(graph);
    for (size_t n = 0; n < result.size(); ++n) {
        result[n].reason = unsupported_reason(graph, n, device, compile_time);
        result[n].supported = result[n].reason.empty();
    }
    return result;
}

std::unique_ptr<sdk::CompiledModel> GpuDevice::compile(const sdk::GraphView& graph, const nlohmann::json& config) {
    const GpuConfig c = GpuConfig::from(config);
    const ClDeviceInfo& device = select_instance(c, name());
    check_precision(c, name());
    std::string problems;
    const std::vector<bool> compile_time = reference::compile_time_nodes(graph);
    for (size_t n = 0; n < graph.node_count(); ++n) {
        const std::string reason = unsupported_reason(graph, n, device, compile_time);
        if (!reason.empty()) problems += "\n  '" + graph.node_name(n) + "' (" + graph.type(n) + "): " + reason;
    }
    if (!problems.empty())
        throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, "device " + name() + " cannot run these ops of model '" + graph.name() +
                                                         "':" + problems + "\nrun them on another device (e.g. HETERO:" +
                                                         name() + ",CPU)");
    try {
        return std::make_unique<GpuCompiledModel>(graph, config, c, device, name(),
                                                  properties().get("DEVICE_ID").get<std::string>());
    } catch (const cl::Error& e) {
        throw sdk::Error(MOSAIC_ERROR_DEVICE, "device " + name() + " ('" + device.name + "'): OpenCL failed while compiling model '" +
                                                  graph.name() + "' in " + e.what() + ": " + cl_status_name(e.err()));
    }
}

}  // namespace mosaic::gpu_plugin

MOSAIC_DEFINE_PLUGIN(mosaic::gpu_plugin::GpuDevice, "mosaic_gpu", "0.1.0")
