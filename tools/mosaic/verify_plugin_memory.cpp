// verify-plugin's "memory" check: the device-memory members of ABI 1.3, through Core as an
// application meets them. DEVICE_MEMORY must be consistent; a plugin that hands out buffers must
// run a split where HETERO keeps a tensor in its memory between two of its subgraphs (written by
// one request, read by another, never through the host) and get the same answer as through host
// memory.
#include "verify_plugin_checks.hpp"

#include <mosaic/mosaic.hpp>

#include <algorithm>

namespace mosaic::cli {

namespace {

// x -> a = Relu (device) -> a2 = Relu (device) -> r = a2 * 3 (reference) -> y = a + r (device).
// Three subgraphs: `a` is produced by the first and read only by the third, both on the device, so
// HETERO keeps it in a buffer of the device; y = 4 relu(x).
std::shared_ptr<Model> split_model(const std::string& device, const std::string& reference) {
    ModelBuilder b("verify_plugin_memory");
    auto x = b.parameter("x", ElementType::f32, {2, 3});
    auto a = b.op("Relu", {x}, {}, "a");
    auto a2 = b.op("Relu", {a}, {}, "a2");
    auto r = b.op("Multiply", {a2, b.constant<float>({1}, {3.f}, "three")}, {}, "r");
    b.result(b.op("Add", {a, r}, {}, "y"), "out");
    auto model = b.build();
    for (Node* n : model->get_ops())
        n->get_rt_info()["affinity"] = n->get_friendly_name() == "r" || n->get_friendly_name() == "three" ? reference : device;
    return model;
}

// "" when the split computes 4 relu(x) on both paths, else what went wrong.
std::string run_split(Core& core, const VerifyOptions& o) {
    const std::vector<float> x = {-2.f, -0.5f, 0.f, 1.5f, 3.f, -4.f};
    std::vector<float> expected(x.size());
    std::transform(x.begin(), x.end(), expected.begin(), [](float v) { return 4.f * std::max(v, 0.f); });
    const std::string hetero = "HETERO:" + o.device + "," + o.reference;
    for (const bool on_device : {true, false}) {
        std::vector<float> got;
        const std::string why = error_of([&] {
            // DEVICE: in the device's buffers even where its memory is the host's (AUTO would not).
            CompiledModel compiled = core.compile_model(split_model(o.device, o.reference), hetero,
                                                        {{"HETERO_CROSSING_MEMORY", on_device ? "DEVICE" : "HOST"}});
            InferRequest request = compiled.create_infer_request();
            request.set_input_tensor(Tensor::from_vector({2, 3}, ElementType::f32, x));
            request.infer();
            got = request.get_output_tensor().to_vector<float>();
        });
        const std::string path = on_device ? "in the device's buffers" : "through host memory";
        if (!why.empty()) return hetero + " with the crossing " + path + " failed: " + why;
        if (got != expected)
            return hetero + " with the crossing " + path + " computed " + nlohmann::json(got).dump() + ", expected " +
                   nlohmann::json(expected).dump();
    }
    return "";
}

}  // namespace

CheckResult check_memory(Core& core, const VerifyOptions& o) {
    const std::string name = "memory";
    const PluginInfo info = core.get_plugin_info(o.device);
    auto has = [&](const char* member) {
        return std::find(info.optional_members.begin(), info.optional_members.end(), member) != info.optional_members.end();
    };
    if (!has("memory_info") && !has("compiled_memory") && !has("buffers"))
        return {name, Outcome::skip, "the plugin has no device-memory members (ABI 1.3): its tensors are host memory"};
    // Members a C++-layer plugin fills for every device may decline at run time: then the device's
    // tensors are host memory, as for a plugin without them.
    nlohmann::json memory;
    if (std::string why = error_of([&] { memory = core.get_property(o.device, "DEVICE_MEMORY"); }); !why.empty())
        return {name, Outcome::skip, why};
    std::vector<std::string> checked = {"DEVICE_MEMORY " + memory.dump()};
    if (memory.contains("total_bytes")) {
        const uint64_t total = memory.at("total_bytes"), available = memory.at("available_bytes"),
                       used = memory.at("used_bytes");
        if (total && (available > total || used > total))
            return {name, Outcome::fail, "DEVICE_MEMORY " + memory.dump() + ": available and used bytes cannot exceed the total"};
    }
    if (memory.value("buffers", false)) {
        if (o.device.find(':') != std::string::npos) {
            checked.push_back("buffers not exercised: " + o.device + " is itself a multi-device string");
        } else {
            const std::vector<std::string> devices = core.get_available_devices();
            if (std::find(devices.begin(), devices.end(), o.reference) == devices.end()) {
                checked.push_back("buffers not exercised: no " + o.reference + " device to split with");
            } else if (std::find(devices.begin(), devices.end(), "HETERO") == devices.end()) {
                checked.push_back("buffers not exercised: no HETERO device to split with");
            } else if (std::string why = run_split(core, o); !why.empty()) {
                return {name, Outcome::fail, why};
            } else {
                checked.push_back("a tensor kept in its buffers between two subgraphs of HETERO:" + o.device + "," +
                                  o.reference + " gives the answer of host memory");
            }
        }
    }
    std::string detail;
    for (const std::string& c : checked) detail += (detail.empty() ? "" : "; ") + c;
    return {name, Outcome::pass, detail};
}

}  // namespace mosaic::cli
