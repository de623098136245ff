// CompiledModel and InferRequest internals: a plugin's compiled model and requests, with the
// host-side tensors, shape/type checks and asynchronous completion.
#pragma once

#include <mosaic/compiled_model.hpp>
#include <mosaic/sdk/plugin.hpp>

#include "control_flow.hpp"
#include "device_handle.hpp"
#include "graph_view.hpp"
#include "shape_specializer.hpp"
#include "staged_model.hpp"
#include "state.hpp"

#include <condition_variable>
#include <list>
#include <optional>
#include <mutex>
#include <thread>

namespace mosaic {

class CompiledModel::Impl {
public:
    // `graph` may be null for an imported model; it keeps constants alive for the plugin.
    Impl(std::shared_ptr<DeviceHandle> device, std::unique_ptr<HostGraph> graph, mosaic_compiled_model* compiled,
         std::string device_string, std::vector<PortDesc> inputs = {}, std::vector<PortDesc> outputs = {});
    ~Impl();

    struct Options {
        uint64_t max_tensor_bytes = 0;  // per tensor; checked before the device sees the graph
        size_t shape_cache_size = kDefaultShapeCacheSize;
        uint64_t max_loop_iterations = kDefaultMaxLoopIterations;  // control_flow.hpp
    };
    // Compiles `model` on `device`: statically when its inputs are static, else as a dynamic model
    // whose specializations compile on first use (shape_specializer.hpp).
    static std::shared_ptr<Impl> create(std::shared_ptr<DeviceHandle> device, const Model& model,
                                        const nlohmann::json& properties, const std::string& device_string,
                                        const Options& options);

    bool is_dynamic() const { return specializer_ != nullptr; }
    // A model run in stages around a data-dependent op (staged_model.hpp).
    bool is_staged() const { return staged_ != nullptr; }
    const StagedModel& staged() const { return *staged_; }
    const std::shared_ptr<Impl>& prefix() const { return prefix_; }
    const std::shared_ptr<Impl>& suffix() const { return suffix_; }
    // A staged control-flow op's body `index` compiled at the shapes the prefix gives, or null with
    // body_error(index) saying why it does not hold there.
    const std::shared_ptr<Impl>& body(size_t index) const { return bodies_.at(index); }
    const std::string& body_error(size_t index) const { return body_errors_.at(index); }
    uint64_t max_loop_iterations() const { return max_loop_iterations_; }
    // The static compiled model for these input shapes (dynamic models only). Throws naming the
    // shapes when they do not compile.
    std::shared_ptr<Impl> specialize(const InputShapes& shapes) const { return specializer_->get(shapes); }
    size_t shape_cache_size() const { return specializer_ ? specializer_->capacity() : 0; }

    static CompiledModel import_from(std::shared_ptr<DeviceHandle> device, std::istream& blob,
                                     const std::string& device_string, const nlohmann::json& properties);

    const DeviceHandle& device() const { return *device_; }
    mosaic_compiled_model* raw() const { return compiled_; }
    // The model's inputs and outputs, as applications see them.
    const std::vector<PortDesc>& inputs() const { return inputs_; }
    const std::vector<PortDesc>& outputs() const { return outputs_; }
    // Those of the compiled graph: the model's, then each variable's state (state.hpp).
    const std::vector<PortDesc>& graph_inputs() const { return graph_inputs_; }
    const std::vector<PortDesc>& graph_outputs() const { return graph_outputs_; }
    const std::vector<Variable>& variables() const { return variables_; }
    const std::string& device_string() const { return device_string_; }
    PropertyValue property(const std::string& key) const;
    void export_to(std::ostream& out) const;

private:
    // Compiles each body of a staged control-flow op that holds at the shapes its prefix gives.
    static void compile_bodies(Impl& impl, const StagedModel& staged, const nlohmann::json& properties,
                               const Options& options);

    std::shared_ptr<DeviceHandle> device_;
    std::unique_ptr<HostGraph> graph_;
    mosaic_compiled_model* compiled_ = nullptr;
    std::string device_string_;
    std::vector<PortDesc> inputs_, outputs_;
    std::vector<PortDesc> graph_inputs_, graph_outputs_;
    std::vector<Variable> variables_;
    std::unique_ptr<ShapeSpecializer<Impl>> specializer_;
    std::shared_ptr<const StagedModel> staged_;
    std::shared_ptr<Impl> prefix_, suffix_;
    std::vector<std::shared_ptr<Impl>> bodies_;
    std::vector<std::string> body_errors_;
    uint64_t max_loop_iterations_ = kDefaultMaxLoopIterations;
    std::string network_name_;  // dynamic and staged models, which have no graph of their own
};

class InferRequest::Impl : public std::enable_shared_from_this<InferRequest::Impl> {
public:
    explicit Impl(std::shared_ptr<CompiledModel::Impl> model);
    ~Impl();

    void set_tensor(size_t index, bool is_input, const Tensor& tensor);
    Tensor& tensor(size_t index, bool is_input);
    // (index, is_input) of a name; throws listing the names when unknown.
    std::pair<size_t, bool> find(const std::string& name) const;

    void infer();
    void start_async();
    bool wait_for(std::chrono::milliseconds timeout, bool forever);
    void set_callback(std::function<void(std::exception_ptr)> callback);
    std::vector<ProfilingInfo> profiling() const;

private:
    void build_descriptors();
    void complete(mosaic_status* status) noexcept;
    // Ends an inference: runs the callback, then releases waiters.
    void finish(std::exception_ptr error) noexcept;
    void check_idle(const char* what) const;

    // Dynamic models (dynamic_request.cpp): inputs are checked against their ranges, and each
    // inference runs on the request of the specialization for its input shapes.
    void check_dynamic_tensor(size_t index, bool is_input, const Tensor& tensor) const;
    std::shared_ptr<Impl> specialization();
    void collect_outputs(Impl& specialized);
    void start_dynamic();
    struct Specialized {
        InputShapes shapes;
        std::shared_ptr<Impl> request;
    };
    std::list<Specialized> specialized_;  // most recently used first, bounded like the model's cache
    std::shared_ptr<Impl> current_;       // the one the last inference ran on (profiling reads it)
    std::vector<bool> input_set_, output_set_;

    // Stateful models (state_request.cpp): each variable's current value, or a pending reset.
    struct VariableValue {
        Tensor value;
        bool reset = true;
    };
    std::vector<VariableValue> state_;
    void feed_state();
    void take_state() noexcept;

    // Staged models (staged_request.cpp): a request per stage, the host's op between them.
    std::shared_ptr<Impl> prefix_request_, suffix_request_;
    void init_stages();
    void run_host_stage();  // the prefix's outputs through the op into the suffix's inputs
    // Control-flow ops (control_flow_request.cpp): an If runs the body its condition takes, a Loop
    // its body until the trip count or the condition stops it, each on that body's request.
    std::vector<Tensor> run_body(const std::vector<Tensor>& op_inputs);
    std::vector<Tensor> run_if(const std::vector<Tensor>& op_inputs);
    std::vector<Tensor> run_loop(const std::vector<Tensor>& op_inputs);
    Impl& body_request(size_t index);
    std::vector<std::shared_ptr<Impl>> body_requests_;
    std::optional<size_t> taken_;  // the body the last inference ran
    uint64_t iterations_ = 0;      // a Loop's, in the last inference
    std::chrono::microseconds host_time_{0};
    std::string host_exec_type() const;
    void collect_suffix_outputs();
    void infer_staged();
    void start_staged();

public:
    // VariableState's side (state_request.cpp).
    size_t variable_count() const { return state_.size(); }
    const Variable& variable(size_t index) const;
    Tensor get_state(size_t index) const;
    void set_state(size_t index, const Tensor& value);
    void reset_state(size_t index);
    void reset_state();

    std::shared_ptr<CompiledModel::Impl> model_;
    mosaic_infer_request* request_ = nullptr;
    std::vector<Tensor> inputs_, outputs_;
    std::vector<mosaic_tensor> in_desc_, out_desc_;

    mutable std::mutex mutex_;
    std::condition_variable done_cv_;
    bool running_ = false;
    int callbacks_running_ = 0;  // completion callbacks in progress (wait() waits for them too)
    std::exception_ptr error_;
    std::function<void(std::exception_ptr)> callback_;
    std::unique_ptr<sdk::detail::RequestHolder> fallback_;  // async for plugins without start_async
};

}  // namespace mosaic
