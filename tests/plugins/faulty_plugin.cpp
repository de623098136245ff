// Faulty plugins: FORWARD (forwarding_device.hpp, which runs everything on REFERENCE through the
// host) with one deliberate breach of the plugin contract, chosen at build time by MOSAIC_FAULT.
// tests/registry checks that the host refuses each wrong shape with an error naming the plugin, the
// key and the expected shape; tests/cli checks that `mosaic verify-plugin` catches each fault with
// the check named for it. One source, so that every plugin is correct except in its own fault.
#include "forwarding_device.hpp"

#include <cstddef>
#include <cstring>

#ifndef MOSAIC_FAULT
#error "build with MOSAIC_FAULT=<one of the FAULT_* below>"
#endif

// The faults (values of MOSAIC_FAULT).
#define FAULT_PROPS_STRING 1      // SUPPORTED_PROPERTIES is "FULL_DEVICE_NAME", a string
#define FAULT_PROPS_NAMES 2       // SUPPORTED_PROPERTIES is a plain array of names: allowed, not a fault
#define FAULT_PROPS_NAMELESS 3    // SUPPORTED_PROPERTIES entries are objects without "name"
#define FAULT_PROPS_NUMBERS 4     // SUPPORTED_PROPERTIES is [1, 2, 3]
#define FAULT_IDS_NUMBERS 5       // device_ids is [0, 1], numbers
#define FAULT_PROPERTY_NOT_JSON 6 // get_property writes FULL_DEVICE_NAME unquoted: not JSON
#define FAULT_QUERY_OUT_OF_RANGE 7 // query reports a node past the graph
#define FAULT_EXEC_DEVICES_STRING 8 // compiled EXECUTION_DEVICES is a string, not an array
#define FAULT_ACCEPTS_UNKNOWN 9   // set_properties accepts keys it does not have
#define FAULT_WRONG_VALUES 10     // models with a Sigmoid get 1 added to every f32 output
#define FAULT_NO_CALLBACK 11      // start_async returns success and never calls `done`
#define FAULT_SMALL_TABLE 12      // the function table says it is smaller than ABI 1.0's
#define FAULT_LOST_DEVICE_OUTPUTS 13  // hands out buffers (ABI 1.3), but never writes an output that is one
#define FAULT_WRONG_FUSION 14     // models where a Sigmoid feeds only Relus (a fusion) get 1 added to every f32 output

namespace {

using namespace mosaic;
using test_plugins::ForwardDevice;

// Wraps FORWARD's request to corrupt its results (FAULT_WRONG_VALUES).
class OffByOneRequest : public sdk::InferRequest {
public:
    explicit OffByOneRequest(std::unique_ptr<sdk::InferRequest> inner) : inner_(std::move(inner)) {}
    void infer(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) override {
        inner_->infer(inputs, outputs);
        for (const TensorView& t : outputs)
            if (t.type == ElementType::f32)
                for (int64_t i = 0; i < shape_size(t.shape); ++i) static_cast<float*>(t.data)[i] += 1.f;
    }

private:
    std::unique_ptr<sdk::InferRequest> inner_;
};

// Wraps FORWARD's request so that an output in a buffer of the device goes to a scratch tensor that
// is then dropped (FAULT_LOST_DEVICE_OUTPUTS): what a plugin writing to its staging memory and never
// to the caller's buffer computes.
class LostOutputRequest : public sdk::InferRequest {
public:
    explicit LostOutputRequest(std::unique_ptr<sdk::InferRequest> inner) : inner_(std::move(inner)) {}
    void infer(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) override {
        std::vector<std::vector<unsigned char>> scratch;
        std::vector<TensorView> redirected = outputs;
        for (TensorView& t : redirected)
            if (t.memory_device) t.data = scratch.emplace_back(t.byte_size()).data();
        inner_->infer(inputs, redirected);
    }

private:
    std::unique_ptr<sdk::InferRequest> inner_;
};

class FaultyCompiled : public sdk::CompiledModel {
public:
    FaultyCompiled(std::unique_ptr<sdk::CompiledModel> inner, bool off_by_one, std::string device)
        : inner_(std::move(inner)), off_by_one_(off_by_one), device_(std::move(device)) {}
    std::unique_ptr<sdk::InferRequest> create_request() override {
        auto request = inner_->create_request();
        if (off_by_one_) return std::make_unique<OffByOneRequest>(std::move(request));
        if (MOSAIC_FAULT == FAULT_LOST_DEVICE_OUTPUTS) return std::make_unique<LostOutputRequest>(std::move(request));
        return request;
    }
    // Its buffers are host memory (FaultyDevice::allocate_buffer), which FORWARD's request reads as such.
    bool takes_memory_of(const std::string& memory_device) const override {
        return MOSAIC_FAULT == FAULT_LOST_DEVICE_OUTPUTS && memory_device == device_;
    }
    nlohmann::json property(const std::string& key) const override {
        if (MOSAIC_FAULT == FAULT_EXEC_DEVICES_STRING && key == "EXECUTION_DEVICES") return "REFERENCE";
        return inner_->property(key);
    }

private:
    std::unique_ptr<sdk::CompiledModel> inner_;
    bool off_by_one_;
    std::string device_;
};

// Only one op type computes wrong values, as a real kernel bug would: everything else (Relu, which
// the request checks of verify-plugin run) stays right, so only the per-op check can catch it.
bool has_sigmoid(const sdk::GraphView& graph) {
    for (size_t n = 0; n < graph.node_count(); ++n)
        if (graph.type(n) == "Sigmoid") return true;
    return false;
}

// FAULT_WRONG_FUSION: a Sigmoid whose value only Relus read, as a device that fuses the two would
// take it; observed as well (a Result reads it), the fusion is off and the values are right.
bool has_fused_sigmoid(const sdk::GraphView& graph) {
    for (size_t n = 0; n < graph.node_count(); ++n) {
        if (graph.type(n) != "Sigmoid") continue;
        size_t relus = 0, others = 0;
        for (size_t m = n + 1; m < graph.node_count(); ++m)
            for (size_t i = 0; i < graph.input_count(m); ++i)
                if (graph.input(m, i).node == n) ++(graph.type(m) == "Relu" ? relus : others);
        if (relus && !others) return true;
    }
    return false;
}

class FaultyDevice : public ForwardDevice {
public:
    explicit FaultyDevice(const std::string& name) : ForwardDevice(name) {}

    nlohmann::json get_property(const std::string& key) const override {
        if (key == "SUPPORTED_PROPERTIES") {
            switch (MOSAIC_FAULT) {
                case FAULT_PROPS_STRING: return "FULL_DEVICE_NAME";
                case FAULT_PROPS_NAMES: return {"FULL_DEVICE_NAME", "PERF_COUNT", "TARGET"};
                case FAULT_PROPS_NAMELESS: return nlohmann::json::array({{{"mutable", true}}});
                case FAULT_PROPS_NUMBERS: return {1, 2, 3};
                default: break;
            }
        }
        return ForwardDevice::get_property(key);
    }

    std::unique_ptr<sdk::CompiledModel> compile(const sdk::GraphView& graph, const nlohmann::json& config) override {
        return std::make_unique<FaultyCompiled>(ForwardDevice::compile(graph, config),
                                                (MOSAIC_FAULT == FAULT_WRONG_VALUES && has_sigmoid(graph)) ||
                                                    (MOSAIC_FAULT == FAULT_WRONG_FUSION && has_fused_sigmoid(graph)),
                                                name());
    }

    // FAULT_LOST_DEVICE_OUTPUTS: "device memory" that is host memory, zeroed, copied correctly.
    void* allocate_buffer(const std::string& id, size_t bytes) override {
        if (MOSAIC_FAULT != FAULT_LOST_DEVICE_OUTPUTS) return ForwardDevice::allocate_buffer(id, bytes);
        return new unsigned char[bytes]();
    }
    void release_buffer(const std::string&, void* buffer) override { delete[] static_cast<unsigned char*>(buffer); }
    bool can_copy(const std::string&, const char* other) override {
        return MOSAIC_FAULT == FAULT_LOST_DEVICE_OUTPUTS && !other;
    }
    void copy(const std::string& id, const mosaic_tensor& src, const mosaic_tensor& dst) override {
        if (MOSAIC_FAULT != FAULT_LOST_DEVICE_OUTPUTS) return ForwardDevice::copy(id, src, dst);
        std::memcpy(dst.data, src.data, src.byte_size);
    }
};

// The SDK's correct table, which the faults below patch and call through.
const mosaic_plugin_api& sdk_table() {
    static const mosaic_plugin_api table = sdk::detail::PluginTable<FaultyDevice>::make("mosaic_test_faulty", "0.1.0");
    return table;
}

mosaic_plugin_api faulty_table() {
    mosaic_plugin_api t = sdk_table();
    switch (MOSAIC_FAULT) {
        case FAULT_IDS_NUMBERS:
            t.device_ids = [](mosaic_device*, mosaic_sink sink) {
                return sdk::guard([&] { sdk::write_to(sink, "[0, 1]"); });
            };
            break;
        case FAULT_PROPERTY_NOT_JSON:
            t.get_property = [](mosaic_device* d, const char* key, mosaic_sink sink) {
                if (std::string(key) != "FULL_DEVICE_NAME") return sdk_table().get_property(d, key, sink);
                return sdk::guard([&] { sdk::write_to(sink, "Faulty device (unquoted)"); });
            };
            break;
        case FAULT_QUERY_OUT_OF_RANGE:
            t.query = [](mosaic_device* d, mosaic_graph_view g, const char* props, mosaic_query_sink sink) {
                if (mosaic_status* s = sdk_table().query(d, g, props, sink)) return s;
                sink.report(sink.context, g.api->node_count(g.graph) + 5, 1, nullptr);
                return static_cast<mosaic_status*>(nullptr);
            };
            break;
        case FAULT_ACCEPTS_UNKNOWN:
            // Validates nothing: sets what it knows and drops the rest without a word.
            t.set_properties = [](mosaic_device* d, const char* props) {
                return sdk::guard([&] {
                    auto& device = *sdk::detail::unwrap<sdk::Device>(d);
                    const nlohmann::json given = nlohmann::json::parse(props);
                    nlohmann::json known = nlohmann::json::object();
                    for (const auto& [k, v] : given.items())
                        if (device.properties().declares(k)) known[k] = v;
                    device.properties().set(known);
                });
            };
            break;
        case FAULT_NO_CALLBACK:
            t.start_async = [](mosaic_infer_request*, const mosaic_tensor*, size_t, const mosaic_tensor*, size_t,
                               mosaic_completion_fn, void*) { return static_cast<mosaic_status*>(nullptr); };
            break;
        case FAULT_SMALL_TABLE:
            t.struct_size = offsetof(mosaic_plugin_api, compile);
            break;
        default:
            break;
    }
    return t;
}

}  // namespace

extern "C" MOSAIC_PLUGIN_EXPORT mosaic_status* mosaic_plugin_entry(const mosaic_host_api* host,
                                                                  const mosaic_plugin_api** api) {
    if (mosaic_status* refused = sdk::detail::check_host(host)) return refused;
    sdk::Host::api() = host;
    static const mosaic_plugin_api table = faulty_table();
    *api = &table;
    return nullptr;
}
