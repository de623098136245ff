// The C++ layer over the plugin ABI: write a device as three classes and one export macro.
//
//   class MyDevice : public mosaic::sdk::Device {
//   public:
//       explicit MyDevice(const std::string& name) : Device(name, {standard_properties::perf_count(), ...}) {}
//       std::vector<Support> query(const GraphView& g, const nlohmann::json& config) override;
//       std::unique_ptr<CompiledModel> compile(const GraphView& g, const nlohmann::json& config) override;
//   };
//   MOSAIC_DEFINE_PLUGIN(MyDevice, "my_plugin", "1.0.0")
//
// The macro defines the entry symbol and a function table whose every member catches exceptions
// and turns them into statuses, so nothing C++ crosses the boundary. Asynchronous inference is
// provided here for every plugin: each request gets a worker thread that runs infer() and calls the
// host's completion callback.
#pragma once

#include <mosaic/plugin_abi.h>
#include <mosaic/sdk/graph.hpp>
#include <mosaic/sdk/properties.hpp>
#include <mosaic/sdk/status.hpp>
#include <mosaic/sdk/worker.hpp>
#include <mosaic/tensor_view.hpp>

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mosaic::sdk {

struct ProfilingRecord {
    std::string node_name, node_type, exec_type;
    mosaic_profiling_status status = MOSAIC_PROFILING_EXECUTED;
    uint64_t real_time_us = 0, cpu_time_us = 0;
};

// Device memory (ABI 1.3): what a device has and what a compiled model holds; 0 where unknown.
struct MemoryInfo {
    uint64_t total_bytes = 0, available_bytes = 0, used_bytes = 0;
    bool shares_host_memory = false;  // an integrated GPU: crossing through host memory costs no copy
};
struct CompiledMemory {
    uint64_t model_bytes = 0;    // held once: weights and constants on the device
    uint64_t request_bytes = 0;  // held by each request: intermediate tensors, scratch, staging
};

class InferRequest {
public:
    // Called once when an inference started by start() ends: nullptr, or what it failed with.
    using Done = std::function<void(std::exception_ptr)>;

    virtual ~InferRequest() = default;
    // Inputs and outputs in Parameter / Result order with the compiled types and shapes. A view
    // with a memory_device is a buffer of the device: the SDK passes one only where the compiled
    // model's takes_memory_of accepts that device, and refuses it otherwise.
    virtual void infer(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) = 0;
    // For start_async, a device whose work completes by itself (an OpenCL event, say): starts the
    // inference and returns true; `done` then runs exactly once on another thread, and the request
    // may be started again from within it. Throws when the inference cannot start (nothing is in
    // flight then). The default returns false: the SDK runs infer() on a worker thread instead.
    virtual bool start(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs, Done done) {
        (void)inputs, (void)outputs, (void)done;
        return false;
    }
    // Records of the last infer(); empty when PERF_COUNT is off.
    virtual std::vector<ProfilingRecord> profiling() const { return {}; }
};

class CompiledModel {
public:
    virtual ~CompiledModel() = default;
    // Thread-safe. Called concurrently with inference on other requests.
    virtual std::unique_ptr<InferRequest> create_request() = 0;
    // Properties of the compiled model (e.g. OPTIMAL_NUMBER_OF_INFER_REQUESTS); throw NOT_FOUND otherwise.
    virtual nlohmann::json property(const std::string& key) const {
        throw Error(MOSAIC_ERROR_NOT_FOUND, "compiled model has no property '" + key + "'");
    }
    // Override both to support export/import; the blob format is the plugin's own.
    virtual bool can_export() const { return false; }
    virtual std::string export_model() const { throw Error(MOSAIC_ERROR_NOT_SUPPORTED, "export is not supported"); }
    // Device memory the model and each of its requests hold; false when the device has no figure.
    virtual bool memory(CompiledMemory& out) const { return false; }
    // Whether its requests take buffers of `memory_device` (as the host named the device to
    // allocate_buffer: "GPU.1", or "GPU" for the default instance) as tensors. Default: host memory only.
    virtual bool takes_memory_of(const std::string& memory_device) const { return false; }
};

class Device {
public:
    struct Support {
        bool supported = false;
        // Why not, when not supported; for a supported node an orchestrator may name the device
        // the node is placed on (empty otherwise).
        std::string reason;
    };

    Device(std::string name, std::vector<PropertySpec> specs) : name_(name), properties_(std::move(name), std::move(specs)) {}
    virtual ~Device() = default;

    const std::string& name() const { return name_; }
    // The services of the Core that owns this device (set before the constructor's caller returns).
    const mosaic_host_api* host() const { return host_; }
    void set_host(const mosaic_host_api* host) { host_ = host; }
    PropertyStore& properties() { return properties_; }
    const PropertyStore& properties() const { return properties_; }

    // A property's value; override for values that depend on others (a read-only name that
    // follows a setting), else the store's value.
    virtual nlohmann::json get_property(const std::string& key) const { return properties_.get(key); }

    // Physical instances ("0", "1"...) when the device has several; empty for one.
    virtual std::vector<std::string> device_ids() const { return {}; }

    // One Support per node of `graph`, in node order. `config`: device properties merged with the
    // call's properties.
    virtual std::vector<Support> query(const GraphView& graph, const nlohmann::json& config) = 0;
    virtual std::unique_ptr<CompiledModel> compile(const GraphView& graph, const nlohmann::json& config) = 0;
    virtual std::unique_ptr<CompiledModel> import_model(const void* blob, size_t size, const nlohmann::json& config) {
        throw Error(MOSAIC_ERROR_NOT_SUPPORTED, "device '" + name_ + "' cannot import compiled models");
    }
    // Cost of one node; return false when the device has no estimate (the host falls back).
    virtual bool estimate_cost(const GraphView& graph, size_t node, double& compute_us, double& bytes_per_us) {
        return false;
    }

    // How the device would run `graph` (ABI 1.4 query_plan), as a JSON object, without compiling
    // it; false when it has no plan to tell (a single device). Orchestrators override it.
    virtual bool plan(const GraphView& graph, const nlohmann::json& config, nlohmann::json& out) { return false; }

    // Device memory (ABI 1.3); a device whose tensors are host memory overrides none of these.
    // `id` is the instance ("1" for GPU.1, "" for the default one).
    // The instance's memory; false when the device cannot tell.
    virtual bool memory_info(const std::string& id, MemoryInfo& out) { return false; }
    // A buffer of `bytes` (> 0): its handle, as tensors' data carry it. Throws
    // Error(MOSAIC_ERROR_OUT_OF_MEMORY) when the device has no room.
    virtual void* allocate_buffer(const std::string& id, size_t bytes) {
        throw Error(MOSAIC_ERROR_NOT_SUPPORTED, "device '" + name_ + "' has no memory of its own: its tensors are host memory");
    }
    virtual void release_buffer(const std::string& id, void* buffer) {}
    // Whether copy() reaches the buffers of `other` ("GPU.1"), or host memory when it is null.
    virtual bool can_copy(const std::string& id, const char* other) { return false; }
    // Copies src into dst (equal byte sizes, checked): one is a buffer of instance `id`, the other
    // host memory or a buffer of a device can_copy accepts. Synchronous: the SDK runs the ABI's
    // completion callback once it returns.
    virtual void copy(const std::string& id, const mosaic_tensor& src, const mosaic_tensor& dst) {
        throw Error(MOSAIC_ERROR_NOT_SUPPORTED, "device '" + name_ + "' has no memory of its own to copy");
    }

private:
    std::string name_;
    const mosaic_host_api* host_ = nullptr;
    PropertyStore properties_;
};

// The host's services, available to the plugin after the entry call.
class Host {
public:
    static const mosaic_host_api*& api() {
        static const mosaic_host_api* host = nullptr;
        return host;
    }
    static void log(mosaic_log_level level, const std::string& device, const std::string& message) {
        if (const mosaic_host_api* h = api()) h->log(h->host_context, level, device.c_str(), message.c_str());
    }
};

namespace detail {

inline ConstTensorView to_view(const mosaic_tensor& t) {
    return {static_cast<ElementType>(t.element_type), Shape(t.dims, t.dims + t.rank), t.data};
}

// A request and how start_async runs on it: the request's own start() where the device completes
// by itself, else infer() on the holder's worker thread.
class RequestHolder {
public:
    // `model` made the request and outlives it (the ABI releases requests first).
    RequestHolder(std::unique_ptr<InferRequest> impl, const CompiledModel& model) : impl_(std::move(impl)), model_(model) {}
    ~RequestHolder() {
        // A started inference ends before the request goes: the host waits for it, but a completion
        // may still be returning from the host's callback. The worker (destroyed first) then joins.
        std::unique_lock<std::mutex> lock(mutex_);
        idle_.wait(lock, [&] { return !running_ && completing_ == 0; });
    }

    InferRequest& impl() { return *impl_; }

    void infer(const mosaic_tensor* inputs, size_t n_in, const mosaic_tensor* outputs, size_t n_out) {
        std::vector<ConstTensorView> in;
        std::vector<TensorView> out;
        views(inputs, n_in, outputs, n_out, in, out);
        impl_->infer(in, out);
    }

    void start(const mosaic_tensor* inputs, size_t n_in, const mosaic_tensor* outputs, size_t n_out,
               mosaic_completion_fn done, void* user_data) {
        // Descriptors (and their dims) are copied: the caller only keeps the data alive.
        Job job;
        job.inputs.assign(inputs, inputs + n_in);
        job.outputs.assign(outputs, outputs + n_out);
        for (auto* list : {&job.inputs, &job.outputs})
            for (auto& t : *list) {
                job.dims.emplace_back(t.dims, t.dims + t.rank);
                t.dims = job.dims.back().data();
                if (t.memory_device) t.memory_device = job.devices.emplace_back(t.memory_device).c_str();
            }
        job.done = done;
        job.user_data = user_data;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (running_) throw Error(MOSAIC_ERROR_INVALID_ARGUMENT, "request is already running");
            job_ = std::move(job);
            running_ = true;
        }
        // The job's descriptors stay where they are until it completes.
        std::vector<ConstTensorView> in;
        std::vector<TensorView> out;
        views(job_.inputs.data(), job_.inputs.size(), job_.outputs.data(), job_.outputs.size(), in, out);
        try {
            if (impl_->start(in, out, [this](std::exception_ptr error) { complete(error); })) return;
            worker_.post([this] { run(); });
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            running_ = false;
            idle_.notify_all();
            throw;
        }
    }

private:
    struct Job {
        std::vector<mosaic_tensor> inputs, outputs;
        std::vector<std::vector<int64_t>> dims;
        std::deque<std::string> devices;  // the descriptors' memory_device, copied (a deque: no moves)
        mosaic_completion_fn done = nullptr;
        void* user_data = nullptr;
    };

    void views(const mosaic_tensor* inputs, size_t n_in, const mosaic_tensor* outputs, size_t n_out,
               std::vector<ConstTensorView>& in, std::vector<TensorView>& out) const {
        for (size_t i = 0; i < n_in; ++i) in.push_back(view(inputs[i], "input", i));
        for (size_t i = 0; i < n_out; ++i) {
            ConstTensorView v = view(outputs[i], "output", i);
            out.push_back({v.type, v.shape, outputs[i].data, v.memory_device});
        }
    }

    // A device buffer reaches the request only where its compiled model reads that device's buffers:
    // any other plugin would take the handle for a host pointer.
    ConstTensorView view(const mosaic_tensor& t, const char* what, size_t index) const {
        ConstTensorView v = to_view(t);
        if (t.memory_kind == MOSAIC_MEMORY_HOST) return v;
        const std::string device = t.memory_device ? t.memory_device : "";
        if (t.memory_kind != MOSAIC_MEMORY_DEVICE || !model_.takes_memory_of(device))
            throw Error(MOSAIC_ERROR_INVALID_ARGUMENT,
                        std::string(what) + " " + std::to_string(index) + " is in the memory of device '" + device +
                            "', which this request cannot read; pass host memory or a buffer of the device it was "
                            "compiled on");
        v.memory_device = t.memory_device;
        return v;
    }

    // Ends the running job: the request is idle before the host hears of it, so the host's callback
    // may start it again.
    void complete(std::exception_ptr error) {
        mosaic_status* status = error ? guard([&] { std::rethrow_exception(error); }) : nullptr;
        Job job;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            job = std::move(job_);
            running_ = false;
            ++completing_;
        }
        job.done(job.user_data, status);
        std::lock_guard<std::mutex> lock(mutex_);
        --completing_;
        idle_.notify_all();
    }

    // The worker's job: the started inference, computed synchronously.
    void run() {
        std::exception_ptr error;
        try {
            infer(job_.inputs.data(), job_.inputs.size(), job_.outputs.data(), job_.outputs.size());
        } catch (...) {
            error = std::current_exception();
        }
        complete(error);
    }

    std::unique_ptr<InferRequest> impl_;
    const CompiledModel& model_;
    std::mutex mutex_;
    std::condition_variable idle_;
    Job job_;
    bool running_ = false;
    int completing_ = 0;
    Worker worker_;  // last: it joins before the rest goes
};

template <typename T, typename H> T* unwrap(H* handle) { return reinterpret_cast<T*>(handle); }
template <typename H, typename T> H* wrap(T* object) { return reinterpret_cast<H*>(object); }

inline nlohmann::json parse_properties(const char* text, const std::string& device) {
    if (!text || !*text) return nlohmann::json::object();
    try {
        return nlohmann::json::parse(text);
    } catch (const std::exception& e) {
        throw Error(MOSAIC_ERROR_INVALID_ARGUMENT, "properties for device '" + device + "' are not valid JSON: " + e.what());
    }
}

template <typename DeviceClass>
struct PluginTable {
    static Device& dev(mosaic_device* d) { return *unwrap<Device>(d); }

    static nlohmann::json config(Device& d, const char* properties_json) {
        return d.properties().merged(d.properties().validate(parse_properties(properties_json, d.name())));
    }

    static mosaic_plugin_api make(const char* name, const char* version) {
        mosaic_plugin_api t{};
        t.struct_size = sizeof(mosaic_plugin_api);
        t.abi_major = MOSAIC_ABI_VERSION_MAJOR;
        t.abi_minor = MOSAIC_ABI_VERSION_MINOR;
        t.plugin_name = name;
        t.plugin_version = version;
        t.create_device = [](const mosaic_host_api* host, const char* device_name, const char* props,
                             mosaic_device** out) {
            return guard([&] {
                auto d = std::make_unique<DeviceClass>(std::string(device_name));
                d->set_host(host);
                d->properties().set(parse_properties(props, device_name), /*allow_read_only=*/true);
                *out = wrap<mosaic_device>(static_cast<Device*>(d.release()));
            });
        };
        t.release_device = [](mosaic_device* d) { delete unwrap<Device>(d); };
        t.device_ids = [](mosaic_device* d, mosaic_sink sink) {
            return guard([&] { write_to(sink, nlohmann::json(dev(d).device_ids()).dump()); });
        };
        t.set_properties = [](mosaic_device* d, const char* props) {
            return guard([&] { dev(d).properties().set(parse_properties(props, dev(d).name())); });
        };
        t.get_property = [](mosaic_device* d, const char* key, mosaic_sink sink) {
            return guard([&] { write_to(sink, dev(d).get_property(key).dump()); });
        };
        t.query = [](mosaic_device* d, mosaic_graph_view g, const char* props, mosaic_query_sink sink) {
            return guard([&] {
                GraphView graph(g);
                std::vector<Device::Support> result = dev(d).query(graph, config(dev(d), props));
                if (result.size() != graph.node_count())
                    throw Error(MOSAIC_ERROR_GENERAL, "plugin bug: query answered " + std::to_string(result.size()) +
                                                          " of " + std::to_string(graph.node_count()) + " nodes");
                // For a supported node the reason, when given, is the ABI's detail (an orchestrator's placement).
                for (size_t n = 0; n < result.size(); ++n)
                    sink.report(sink.context, n, result[n].supported ? 1 : 0,
                                result[n].reason.empty() ? nullptr : result[n].reason.c_str());
            });
        };
        t.compile = [](mosaic_device* d, mosaic_graph_view g, const char* props, mosaic_compiled_model** out) {
            return guard([&] {
                *out = wrap<mosaic_compiled_model>(dev(d).compile(GraphView(g), config(dev(d), props)).release());
            });
        };
        t.release_compiled_model = [](mosaic_compiled_model* m) { delete unwrap<CompiledModel>(m); };
        t.compiled_property = [](mosaic_compiled_model* m, const char* key, mosaic_sink sink) {
            return guard([&] { write_to(sink, unwrap<CompiledModel>(m)->property(key).dump()); });
        };
        t.export_model = [](mosaic_compiled_model* m, mosaic_sink sink) {
            return guard([&] { write_to(sink, unwrap<CompiledModel>(m)->export_model()); });
        };
        t.import_model = [](mosaic_device* d, const void* blob, size_t size, const char* props,
                            mosaic_compiled_model** out) {
            return guard([&] {
                *out = wrap<mosaic_compiled_model>(dev(d).import_model(blob, size, config(dev(d), props)).release());
            });
        };
        t.create_request = [](mosaic_compiled_model* m, mosaic_infer_request** out) {
            return guard([&] {
                CompiledModel& model = *unwrap<CompiledModel>(m);
                auto holder = std::make_unique<RequestHolder>(model.create_request(), model);
                *out = wrap<mosaic_infer_request>(holder.release());
            });
        };
        t.release_request = [](mosaic_infer_request* r) { delete unwrap<RequestHolder>(r); };
        t.infer = [](mosaic_infer_request* r, const mosaic_tensor* in, size_t n_in, const mosaic_tensor* out, size_t n_out) {
            return guard([&] { unwrap<RequestHolder>(r)->infer(in, n_in, out, n_out); });
        };
        t.start_async = [](mosaic_infer_request* r, const mosaic_tensor* in, size_t n_in, const mosaic_tensor* out,
                           size_t n_out, mosaic_completion_fn done, void* user_data) {
            return guard([&] { unwrap<RequestHolder>(r)->start(in, n_in, out, n_out, done, user_data); });
        };
        t.profiling = [](mosaic_infer_request* r, mosaic_profiling_sink sink) {
            return guard([&] {
                for (const ProfilingRecord& p : unwrap<RequestHolder>(r)->impl().profiling()) {
                    mosaic_profiling_record rec{};
                    rec.struct_size = sizeof(rec);
                    rec.node_name = p.node_name.c_str();
                    rec.node_type = p.node_type.c_str();
                    rec.exec_type = p.exec_type.c_str();
                    rec.status = p.status;
                    rec.real_time_us = p.real_time_us;
                    rec.cpu_time_us = p.cpu_time_us;
                    sink.record(sink.context, &rec);
                }
            });
        };
        t.estimate_cost = [](mosaic_device* d, mosaic_graph_view g, size_t node, mosaic_op_cost* out) {
            return guard([&] {
                double compute = 0, rate = 0;
                if (!dev(d).estimate_cost(GraphView(g), node, compute, rate))
                    throw Error(MOSAIC_ERROR_NOT_SUPPORTED, "no cost estimate");
                out->compute_us = compute;
                out->bytes_per_us = rate;
            });
        };
        add_memory_members(t);
        t.query_plan = [](mosaic_device* d, mosaic_graph_view g, const char* props, mosaic_sink sink) {
            return guard([&] {
                nlohmann::json plan;
                if (!dev(d).plan(GraphView(g), config(dev(d), props), plan)) return;  // nothing written: no plan
                if (!plan.is_object()) throw Error(MOSAIC_ERROR_GENERAL, "plugin bug: a plan must be a JSON object");
                write_to(sink, plan.dump());
            });
        };
        return t;
    }

    static std::string instance(const char* id) { return id ? id : ""; }

    // ABI 1.3: device memory, declined at run time (NOT_SUPPORTED) by devices that do not override it.
    static void add_memory_members(mosaic_plugin_api& t) {
        t.memory_info = [](mosaic_device* d, const char* id, mosaic_memory_info* out) {
            return guard([&] {
                if (!out) throw Error(MOSAIC_ERROR_INVALID_ARGUMENT, "memory_info: no output given");
                MemoryInfo info;
                if (!dev(d).memory_info(instance(id), info))
                    throw Error(MOSAIC_ERROR_NOT_SUPPORTED, "device '" + dev(d).name() + "' does not report its memory");
                out->total_bytes = info.total_bytes;
                out->available_bytes = info.available_bytes;
                out->used_bytes = info.used_bytes;
                out->shares_host_memory = info.shares_host_memory ? 1 : 0;
            });
        };
        t.compiled_memory = [](mosaic_compiled_model* m, mosaic_compiled_memory* out) {
            return guard([&] {
                if (!out) throw Error(MOSAIC_ERROR_INVALID_ARGUMENT, "compiled_memory: no output given");
                CompiledMemory memory;
                if (!unwrap<CompiledModel>(m)->memory(memory))
                    throw Error(MOSAIC_ERROR_NOT_SUPPORTED, "the device reports no memory figures for compiled models");
                out->model_bytes = memory.model_bytes;
                out->request_bytes = memory.request_bytes;
            });
        };
        t.allocate_buffer = [](mosaic_device* d, const char* id, size_t bytes, void** out) {
            return guard([&] {
                if (!out) throw Error(MOSAIC_ERROR_INVALID_ARGUMENT, "allocate_buffer: no output given");
                if (!bytes) throw Error(MOSAIC_ERROR_INVALID_ARGUMENT, "allocate_buffer: a buffer needs at least one byte");
                *out = dev(d).allocate_buffer(instance(id), bytes);
            });
        };
        t.release_buffer = [](mosaic_device* d, const char* id, void* buffer) {
            if (!buffer) return;
            mosaic_status* ignored = guard([&] { dev(d).release_buffer(instance(id), buffer); });
            if (ignored) ignored->release(ignored);  // nothing to tell the host: the buffer is gone either way
        };
        t.can_copy = [](mosaic_device* d, const char* id, const char* other) -> int {
            bool yes = false;
            mosaic_status* failed = guard([&] { yes = dev(d).can_copy(instance(id), other); });
            if (failed) failed->release(failed);
            return yes && !failed ? 1 : 0;
        };
        t.copy = [](mosaic_device* d, const char* id, const mosaic_tensor* src, const mosaic_tensor* dst,
                    mosaic_completion_fn done, void* user_data) -> mosaic_status* {
            mosaic_status* status = guard([&] {
                if (!src || !dst) throw Error(MOSAIC_ERROR_INVALID_ARGUMENT, "copy: no source or destination given");
                if (src->byte_size != dst->byte_size)
                    throw Error(MOSAIC_ERROR_INVALID_ARGUMENT, "copy: the source holds " + std::to_string(src->byte_size) +
                                                                   " bytes, the destination " + std::to_string(dst->byte_size));
                dev(d).copy(instance(id), *src, *dst);
            });
            if (!done) return status;
            done(user_data, status);  // the copy has ended: its completion runs here, as the ABI allows
            return nullptr;
        };
    }
};

// Refuses a host of another major ABI version.
inline mosaic_status* check_host(const mosaic_host_api* host) {
    if (!host) return make_status(MOSAIC_ERROR_INVALID_ARGUMENT, "no host services given");
    if ((host->version >> 16) != MOSAIC_ABI_VERSION_MAJOR)
        return make_status(MOSAIC_ERROR_NOT_SUPPORTED,
                           "plugin built for ABI " + std::to_string(MOSAIC_ABI_VERSION_MAJOR) + ".x, host offers " +
                               std::to_string(host->version >> 16) + "." + std::to_string(host->version & 0xffff));
    return nullptr;
}

}  // namespace detail
}  // namespace mosaic::sdk

// Defines the plugin's entry symbol for a Device subclass constructible from its registry name.
#define MOSAIC_DEFINE_PLUGIN(DeviceClass, plugin_name, plugin_version)                                         \
    extern "C" MOSAIC_PLUGIN_EXPORT mosaic_status* mosaic_plugin_entry(const mosaic_host_api* host,           \
                                                                      const mosaic_plugin_api** api) {         \
        if (mosaic_status* refused = ::mosaic::sdk::detail::check_host(host)) return refused;                   \
        ::mosaic::sdk::Host::api() = host;                                                                     \
        static const mosaic_plugin_api table =                                                                 \
            ::mosaic::sdk::detail::PluginTable<DeviceClass>::make(plugin_name, plugin_version);               \
        *api = &table;                                                                                         \
        return nullptr;                                                                                        \
    }
