// The devices of FORWARD (forwarding_plugin.cpp) and of the faulty plugins (faulty_plugin.cpp): no
// kernels of their own; query asks the host what the TARGET device supports, compile has the host
// compile the whole graph on TARGET, and inference goes through the host's request (asynchronously,
// with a completion callback). HETERO uses the same services to run subgraphs on other devices.
#pragma once

#include <mosaic/sdk/plugin.hpp>

#include <future>

namespace mosaic::test_plugins {

namespace sp = mosaic::sdk::standard_properties;

inline mosaic_tensor descriptor(ElementType type, const Shape& shape, const void* data) {
    mosaic_tensor d{};
    d.struct_size = sizeof(d);
    d.element_type = static_cast<mosaic_element_type>(type);
    d.rank = static_cast<uint32_t>(shape.size());
    d.dims = shape.data();
    d.data = const_cast<void*>(data);
    d.byte_size = static_cast<size_t>(shape_size(shape)) * element_size(type);
    return d;
}

class ForwardRequest : public sdk::InferRequest {
public:
    ForwardRequest(const mosaic_host_api* host, mosaic_host_request* request) : host_(host), request_(request) {}
    ~ForwardRequest() override { host_->release_request(host_->host_context, request_); }

    void infer(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) override {
        std::vector<mosaic_tensor> in, out;
        for (const auto& t : inputs) in.push_back(descriptor(t.type, t.shape, t.data));
        for (const auto& t : outputs) out.push_back(descriptor(t.type, t.shape, t.data));
        std::promise<mosaic_status*> done;
        sdk::check(host_->start_async(host_->host_context, request_, in.data(), in.size(), out.data(), out.size(),
                                      [](void* p, mosaic_status* s) { static_cast<std::promise<mosaic_status*>*>(p)->set_value(s); },
                                      &done),
                   "starting the forwarded request");
        sdk::check(done.get_future().get(), "forwarded inference");
    }

    std::vector<sdk::ProfilingRecord> profiling() const override {
        std::vector<sdk::ProfilingRecord> records;
        mosaic_profiling_sink sink{&records, [](void* ctx, const mosaic_profiling_record* r) {
                                       static_cast<std::vector<sdk::ProfilingRecord>*>(ctx)->push_back(
                                           {std::string("forwarded: ") + r->node_name, r->node_type, r->exec_type,
                                            r->status, r->real_time_us, r->cpu_time_us});
                                   }};
        sdk::check(host_->request_profiling(host_->host_context, request_, sink), "forwarded profiling");
        return records;
    }

private:
    const mosaic_host_api* host_;
    mosaic_host_request* request_;
};

class ForwardCompiled : public sdk::CompiledModel {
public:
    ForwardCompiled(const mosaic_host_api* host, mosaic_host_compiled* compiled) : host_(host), compiled_(compiled) {}
    ~ForwardCompiled() override { host_->release_compiled(host_->host_context, compiled_); }

    std::unique_ptr<sdk::InferRequest> create_request() override {
        mosaic_host_request* r = nullptr;
        sdk::check(host_->create_request(host_->host_context, compiled_, &r), "creating the forwarded request");
        return std::make_unique<ForwardRequest>(host_, r);
    }

    nlohmann::json property(const std::string& key) const override {
        std::string text;
        sdk::check(host_->compiled_property(host_->host_context, compiled_, key.c_str(), sdk::string_sink(text)));
        return nlohmann::json::parse(text);
    }

private:
    const mosaic_host_api* host_;
    mosaic_host_compiled* compiled_;
};

class ForwardDevice : public sdk::Device {
public:
    explicit ForwardDevice(const std::string& name)
        : Device(name, {sp::full_device_name("Forwards everything to TARGET through the host (test orchestrator)"),
                        sp::perf_count(),
                        {"TARGET", sdk::PropertyKind::string, "REFERENCE", {}, false, 0, "the device that runs the model"}}) {}

    std::vector<Support> query(const sdk::GraphView& graph, const nlohmann::json& config) override {
        const std::string target = config.at("TARGET");
        std::vector<Support> result(graph.node_count());
        mosaic_query_sink sink{&result, [](void* ctx, size_t node, int supported, const char* detail) {
                                   auto& r = *static_cast<std::vector<Support>*>(ctx);
                                   if (node < r.size()) r[node] = {supported != 0, detail ? detail : ""};
                               }};
        sdk::check(host()->query_device(host()->host_context, target.c_str(), graph.raw(), "{}", sink),
                   "query through the host");
        for (auto& s : result)
            if (s.supported) s.reason = target;  // an orchestrator reports where a supported node goes
        return result;
    }

    std::unique_ptr<sdk::CompiledModel> compile(const sdk::GraphView& graph, const nlohmann::json& config) override {
        const std::string target = config.at("TARGET");
        const nlohmann::json props = {{"PERF_COUNT", config.at("PERF_COUNT")}};
        mosaic_host_compiled* compiled = nullptr;
        sdk::check(host()->compile_on_device(host()->host_context, target.c_str(), graph.raw(), props.dump().c_str(),
                                             &compiled),
                   "compiling on " + target + " through the host");
        return std::make_unique<ForwardCompiled>(host(), compiled);
    }
};

}  // namespace mosaic::test_plugins

