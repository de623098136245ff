// A device plugin written straight against the C ABI, as a vendor's plugin built against ABI 1.0
// would be: no C++ layer, its own statuses, and a function table that ends where 1.0 ended
// (struct_size == MOSAIC_PLUGIN_API_SIZE_1_0, abi_minor 0). It proves that a host of a newer minor
// loads and runs an older one.
//
// The table is placed at the very end of a readable page followed by an inaccessible one, so a host
// that reads any member past struct_size (estimate_cost, ABI 1.1) crashes here instead of silently
// reading garbage.
//
// The device, OLD10 in the tests, runs f32 Parameter / Constant / Relu / Add / Result through the
// reference kernels. Properties: FULL_DEVICE_NAME (read-only) and PERF_COUNT.
#include <mosaic/plugin_abi.h>
#include <mosaic/reference/kernels.hpp>

#include <nlohmann/json.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

const char kPluginName[] = "mosaic_test_abi10";
const char kFullDeviceName[] = "ABI 1.0 test device (C ABI only, reference kernels)";

// ---- statuses: allocated and released here ----

struct OwnedStatus {
    mosaic_status status;  // first member: the host sees a mosaic_status*
    char* text;
};

void release_status(mosaic_status* s) {
    OwnedStatus* owned = reinterpret_cast<OwnedStatus*>(s);
    std::free(owned->text);
    std::free(owned);
}

mosaic_status* make_status(mosaic_status_code code, const std::string& message) noexcept {
    auto* owned = static_cast<OwnedStatus*>(std::calloc(1, sizeof(OwnedStatus)));
    if (!owned) return nullptr;
    owned->text = static_cast<char*>(std::malloc(message.size() + 1));
    if (owned->text) std::memcpy(owned->text, message.c_str(), message.size() + 1);
    owned->status.struct_size = sizeof(mosaic_status);
    owned->status.code = code;
    owned->status.message = owned->text ? owned->text : "out of memory";
    owned->status.release = release_status;
    return &owned->status;
}

struct Failure {
    mosaic_status_code code;
    std::string message;
};

// Every entry point runs its body through this: nothing thrown may cross the ABI.
template <typename Fn>
mosaic_status* guarded(Fn&& fn) noexcept {
    try {
        fn();
        return nullptr;
    } catch (const Failure& f) {
        return make_status(f.code, f.message);
    } catch (const std::exception& e) {
        return make_status(MOSAIC_ERROR_GENERAL, e.what());
    } catch (...) {
        return make_status(MOSAIC_ERROR_GENERAL, "unknown error in the ABI 1.0 test plugin");
    }
}

void write(mosaic_sink sink, const std::string& text) {
    if (sink.write(sink.context, text.data(), text.size()) != 0)
        throw Failure{MOSAIC_ERROR_OUT_OF_MEMORY, "the host's sink refused the output"};
}

// ---- the device and its properties ----

struct Device {
    std::string name;
    std::string full_name = kFullDeviceName;  // a registry may name an emulated device
    std::mutex mutex;
    bool perf_count = false;
};

Device* device_of(mosaic_device* d) { return reinterpret_cast<Device*>(d); }

nlohmann::json parse_object(const char* text, const std::string& device) {
    if (!text || !*text) return nlohmann::json::object();
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object())
        throw Failure{MOSAIC_ERROR_INVALID_ARGUMENT, "properties for device '" + device + "' must be a JSON object"};
    return j;
}

// Validates `props` and returns the PERF_COUNT it sets (or `perf_count` unchanged). Changes nothing.
bool apply_properties(const std::string& device, const nlohmann::json& props, bool perf_count, bool initial) {
    for (const auto& [key, value] : props.items()) {
        if (key == "PERF_COUNT") {
            if (value.is_boolean()) perf_count = value.get<bool>();
            else if (value == "YES") perf_count = true;
            else if (value == "NO") perf_count = false;
            else
                throw Failure{MOSAIC_ERROR_INVALID_ARGUMENT, "property 'PERF_COUNT' of device '" + device +
                                                                 "' expects YES or NO (a boolean), got " + value.dump()};
        } else if (key == "FULL_DEVICE_NAME") {
            if (!value.is_string())
                throw Failure{MOSAIC_ERROR_INVALID_ARGUMENT, "property 'FULL_DEVICE_NAME' of device '" + device +
                                                                 "' expects a string, got " + value.dump()};
            if (!initial)
                throw Failure{MOSAIC_ERROR_INVALID_ARGUMENT,
                              "property 'FULL_DEVICE_NAME' of device '" + device + "' is read-only"};
        } else {
            throw Failure{MOSAIC_ERROR_NOT_FOUND, "device '" + device + "' has no property '" + key +
                                                     "'; supported properties: [\"FULL_DEVICE_NAME\",\"PERF_COUNT\"]"};
        }
    }
    return perf_count;
}

// ---- compiled models: the graph flattened into steps over numbered values ----

struct Value {
    mosaic::ElementType type = mosaic::ElementType::undefined;
    mosaic::Shape shape;
    const void* constant = nullptr;  // Constant nodes: the host's bytes, valid for the model's lifetime
};

struct Step {
    std::string name, type, version;
    mosaic::Attributes attrs;
    std::vector<size_t> inputs;  // value indices
    size_t output = 0;           // value index
};

struct CompiledModel {
    std::vector<Value> values;
    std::vector<Step> steps;
    std::vector<size_t> parameters;  // value index per model input
    std::vector<size_t> results;     // value index per model output
    bool perf_count = false;
};

struct InferRequest {
    CompiledModel* model;
    std::vector<std::vector<unsigned char>> scratch;  // one buffer per value computed by a step
    std::vector<std::pair<std::string, std::string>> profile;  // node name, type of the last run
    std::vector<uint64_t> profile_us;
};

bool supported_op(const std::string& type) {
    return type == "Parameter" || type == "Constant" || type == "Result" || type == "Relu" || type == "Add";
}

// Why `node` cannot run here, or "".
std::string unsupported_reason(const mosaic_graph_view& g, size_t node) {
    const std::string type = g.api->node_type(g.graph, node);
    if (!supported_op(type)) return "op " + type + " is not implemented by the ABI 1.0 test plugin";
    for (size_t o = 0, n = g.api->output_count(g.graph, node); o < n; ++o)
        if (g.api->output_type(g.graph, node, o) != MOSAIC_ELEMENT_F32)
            return "the ABI 1.0 test plugin runs f32 only";
    return "";
}

CompiledModel* build(const mosaic_graph_view& g, bool perf_count) {
    auto model = std::make_unique<CompiledModel>();
    model->perf_count = perf_count;
    std::map<std::pair<size_t, size_t>, size_t> value_of;  // (node, port) -> value index
    const size_t count = g.api->node_count(g.graph);
    for (size_t n = 0; n < count; ++n) {
        if (std::string why = unsupported_reason(g, n); !why.empty())
            throw Failure{MOSAIC_ERROR_NOT_SUPPORTED, std::string("node '") + g.api->node_name(g.graph, n) + "': " + why};
        const std::string type = g.api->node_type(g.graph, n);
        std::vector<size_t> inputs;
        for (size_t i = 0, c = g.api->input_count(g.graph, n); i < c; ++i) {
            mosaic_port_ref src = g.api->input_source(g.graph, n, i);
            inputs.push_back(value_of.at({src.node, src.port}));
        }
        if (type == "Result") {
            model->results.push_back(inputs.at(0));
            continue;
        }
        Value v;
        v.type = static_cast<mosaic::ElementType>(g.api->output_type(g.graph, n, 0));
        uint32_t rank = 0;
        const int64_t* dims = g.api->output_shape(g.graph, n, 0, &rank);
        v.shape.assign(dims, dims + rank);
        if (type == "Constant") {
            size_t bytes = 0;
            v.constant = g.api->constant_data(g.graph, n, &bytes);
        }
        const size_t index = model->values.size();
        model->values.push_back(std::move(v));
        value_of[{n, 0}] = index;
        if (type == "Parameter") {
            model->parameters.push_back(index);
        } else if (type != "Constant") {
            Step step{g.api->node_name(g.graph, n), type, g.api->node_version(g.graph, n), {}, inputs, index};
            for (size_t a = 0, c = g.api->attr_count(g.graph, n); a < c; ++a)
                step.attrs.set(g.api->attr_name(g.graph, n, a), std::string(g.api->attr_value(g.graph, n, a)));
            model->steps.push_back(std::move(step));
        }
    }
    return model.release();
}

void run(InferRequest& r, const mosaic_tensor* inputs, size_t input_count, const mosaic_tensor* outputs,
         size_t output_count) {
    CompiledModel& m = *r.model;
    if (input_count != m.parameters.size() || output_count != m.results.size())
        throw Failure{MOSAIC_ERROR_INVALID_ARGUMENT, "expected " + std::to_string(m.parameters.size()) + " inputs and " +
                                                         std::to_string(m.results.size()) + " outputs"};
    std::vector<void*> data(m.values.size(), nullptr);
    for (size_t i = 0; i < m.values.size(); ++i) data[i] = const_cast<void*>(m.values[i].constant);
    for (size_t i = 0; i < input_count; ++i) data[m.parameters[i]] = inputs[i].data;
    r.scratch.resize(m.steps.size());
    r.profile.clear();
    r.profile_us.clear();
    for (size_t s = 0; s < m.steps.size(); ++s) {
        const Step& step = m.steps[s];
        const Value& out = m.values[step.output];
        r.scratch[s].resize(static_cast<size_t>(mosaic::shape_size(out.shape)) * mosaic::element_size(out.type));
        data[step.output] = r.scratch[s].data();
        mosaic::reference::KernelArgs args{step.type, step.version, step.attrs, {}, {}};
        for (size_t in : step.inputs) args.inputs.push_back({m.values[in].type, m.values[in].shape, data[in]});
        args.outputs.push_back({out.type, out.shape, data[step.output]});
        const auto start = std::chrono::steady_clock::now();
        mosaic::reference::run_reference_kernel(args);
        if (m.perf_count) {
            r.profile.emplace_back(step.name, step.type);
            r.profile_us.push_back(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                                             std::chrono::steady_clock::now() - start)
                                                             .count()));
        }
    }
    for (size_t o = 0; o < output_count; ++o) {
        const Value& v = m.values[m.results[o]];
        const size_t bytes = static_cast<size_t>(mosaic::shape_size(v.shape)) * mosaic::element_size(v.type);
        if (outputs[o].byte_size != bytes)
            throw Failure{MOSAIC_ERROR_INVALID_ARGUMENT, "output " + std::to_string(o) + " has " +
                                                             std::to_string(outputs[o].byte_size) + " bytes, expected " +
                                                             std::to_string(bytes)};
        std::memcpy(outputs[o].data, data[m.results[o]], bytes);
    }
}

// ---- the function table ----

mosaic_plugin_api make_table() {
    mosaic_plugin_api t{};
    t.plugin_name = kPluginName;
    t.plugin_version = "1.0.0";
    t.create_device = [](const mosaic_host_api*, const char* name, const char* props, mosaic_device** out) {
        return guarded([&] {
            auto d = std::make_unique<Device>();
            d->name = name;
            const nlohmann::json initial = parse_object(props, d->name);
            d->perf_count = apply_properties(d->name, initial, false, /*initial=*/true);
            if (initial.contains("FULL_DEVICE_NAME")) d->full_name = initial["FULL_DEVICE_NAME"].get<std::string>();
            *out = reinterpret_cast<mosaic_device*>(d.release());
        });
    };
    t.release_device = [](mosaic_device* d) { delete device_of(d); };
    t.device_ids = nullptr;  // one instance
    t.set_properties = [](mosaic_device* d, const char* props) {
        return guarded([&] {
            Device& dev = *device_of(d);
            std::lock_guard<std::mutex> lock(dev.mutex);
            dev.perf_count = apply_properties(dev.name, parse_object(props, dev.name), dev.perf_count, false);
        });
    };
    t.get_property = [](mosaic_device* d, const char* key, mosaic_sink sink) {
        return guarded([&] {
            Device& dev = *device_of(d);
            std::lock_guard<std::mutex> lock(dev.mutex);
            const std::string k = key;
            if (k == "FULL_DEVICE_NAME") return write(sink, nlohmann::json(dev.full_name).dump());
            if (k == "PERF_COUNT") return write(sink, nlohmann::json(dev.perf_count).dump());
            if (k == "SUPPORTED_PROPERTIES")
                return write(sink, R"([{"name":"FULL_DEVICE_NAME","mutable":false},{"name":"PERF_COUNT","mutable":true}])");
            throw Failure{MOSAIC_ERROR_NOT_FOUND, "device '" + dev.name + "' has no property '" + k + "'"};
        });
    };
    t.query = [](mosaic_device*, mosaic_graph_view g, const char*, mosaic_query_sink sink) {
        return guarded([&] {
            for (size_t n = 0, c = g.api->node_count(g.graph); n < c; ++n) {
                const std::string why = unsupported_reason(g, n);
                sink.report(sink.context, n, why.empty() ? 1 : 0, why.empty() ? nullptr : why.c_str());
            }
        });
    };
    t.compile = [](mosaic_device* d, mosaic_graph_view g, const char* props, mosaic_compiled_model** out) {
        return guarded([&] {
            Device& dev = *device_of(d);
            bool perf_count = false;
            {
                std::lock_guard<std::mutex> lock(dev.mutex);
                perf_count = apply_properties(dev.name, parse_object(props, dev.name), dev.perf_count, false);
            }
            *out = reinterpret_cast<mosaic_compiled_model*>(build(g, perf_count));
        });
    };
    t.release_compiled_model = [](mosaic_compiled_model* m) { delete reinterpret_cast<CompiledModel*>(m); };
    t.compiled_property = [](mosaic_compiled_model*, const char* key, mosaic_sink sink) {
        return guarded([&] {
            if (std::string(key) == "OPTIMAL_NUMBER_OF_INFER_REQUESTS") return write(sink, "1");
            throw Failure{MOSAIC_ERROR_NOT_FOUND, std::string("compiled model has no property '") + key + "'"};
        });
    };
    t.export_model = nullptr;  // not supported
    t.import_model = nullptr;
    t.create_request = [](mosaic_compiled_model* m, mosaic_infer_request** out) {
        return guarded([&] {
            *out = reinterpret_cast<mosaic_infer_request*>(new InferRequest{reinterpret_cast<CompiledModel*>(m), {}, {}, {}});
        });
    };
    t.release_request = [](mosaic_infer_request* r) { delete reinterpret_cast<InferRequest*>(r); };
    t.infer = [](mosaic_infer_request* r, const mosaic_tensor* in, size_t n_in, const mosaic_tensor* out, size_t n_out) {
        return guarded([&] { run(*reinterpret_cast<InferRequest*>(r), in, n_in, out, n_out); });
    };
    t.start_async = nullptr;  // the host runs infer() on a thread of its own
    t.profiling = [](mosaic_infer_request* r, mosaic_profiling_sink sink) {
        return guarded([&] {
            const InferRequest& req = *reinterpret_cast<InferRequest*>(r);
            for (size_t i = 0; i < req.profile.size(); ++i) {
                mosaic_profiling_record rec{};
                rec.struct_size = sizeof(rec);
                rec.node_name = req.profile[i].first.c_str();
                rec.node_type = req.profile[i].second.c_str();
                rec.exec_type = "abi10_ref";
                rec.status = MOSAIC_PROFILING_EXECUTED;
                rec.real_time_us = req.profile_us[i];
                rec.cpu_time_us = req.profile_us[i];
                sink.record(sink.context, &rec);
            }
        });
    };
    // What makes this a 1.0 plugin:
    t.struct_size = static_cast<uint32_t>(MOSAIC_PLUGIN_API_SIZE_1_0);
    t.abi_major = 1;
    t.abi_minor = 0;
    return t;
}

// The 1.0 part of the table, ending exactly at a page boundary with an inaccessible page after it.
// Unmapped when the library is unloaded.
class GuardedTable {
public:
    GuardedTable() {
        page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        void* memory = mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED) return;
        memory_ = static_cast<char*>(memory);
        char* end = memory_ + page_;
        const mosaic_plugin_api full = make_table();
        std::memcpy(end - MOSAIC_PLUGIN_API_SIZE_1_0, &full, MOSAIC_PLUGIN_API_SIZE_1_0);
        if (mprotect(end, page_, PROT_NONE) != 0 || mprotect(memory_, page_, PROT_READ) != 0) return;
        table_ = reinterpret_cast<const mosaic_plugin_api*>(end - MOSAIC_PLUGIN_API_SIZE_1_0);
    }
    ~GuardedTable() {
        if (memory_) munmap(memory_, 2 * page_);
    }
    const mosaic_plugin_api* table() const { return table_; }

private:
    size_t page_ = 0;
    char* memory_ = nullptr;
    const mosaic_plugin_api* table_ = nullptr;
};

static_assert(MOSAIC_PLUGIN_API_SIZE_1_0 % alignof(mosaic_plugin_api) == 0,
              "the 1.0 table must stay aligned when placed at the end of a page");

}  // namespace

extern "C" MOSAIC_PLUGIN_EXPORT mosaic_status* mosaic_plugin_entry(const mosaic_host_api* host,
                                                                  const mosaic_plugin_api** api) {
    if (!host || (host->version >> 16) != 1)
        return make_status(MOSAIC_ERROR_NOT_SUPPORTED, "the ABI 1.0 test plugin needs a host of ABI 1.x");
    static GuardedTable guarded_table;
    if (!guarded_table.table())
        return make_status(MOSAIC_ERROR_OUT_OF_MEMORY, "the ABI 1.0 test plugin could not map its function table");
    *api = guarded_table.table();
    return nullptr;
}
