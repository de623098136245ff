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

class InferRequest {
public:
    // Called once when an inference started by start() ends: nullptr, or what it failed with.
    using Done = std::function<void(std::exception_ptr)>;

    virtual ~InferRequest() = default;
    // Inputs and outputs in Parameter / Result order with the compiled types and shapes.
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
    explicit RequestHolder(std::unique_ptr<InferRequest> impl) : impl_(std::move(impl)) {}
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
        mosaic_completion_fn done = nullptr;
        void* user_data = nullptr;
    };

    static void views(const mosaic_tensor* inputs, size_t n_in, const mosaic_tensor* outputs, size_t n_out,
                      std::vector<ConstTensorView>& in, std::vector<TensorView>& out) {
        for (size_t i = 0; i < n_in; ++i) in.push_back(to_view(inputs[i]));
        for (size_t i = 0; i < n_out; ++i) {
            ConstTensorView v = to_view(outputs[i]);
            out.push_back({v.type, v.shape, outputs[i].data});
        }
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
                auto holder = std::make_unique<RequestHolder>(unwrap<CompiledModel>(m)->create_request());
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
        return t;
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
