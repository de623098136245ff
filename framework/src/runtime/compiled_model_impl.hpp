// CompiledModel's internals: a plugin's compiled model, or the parts the builder (create) made of a
// model no device compiles as one (dynamic shapes, a cut at an op the host runs, variables), and
// the factory of the runners (runtime/runner.hpp) its infer requests run on.
#pragma once

#include <mosaic/compiled_model.hpp>

#include "graph/control_flow.hpp"
#include "graph/cut_model.hpp"
#include "runtime/device_handle.hpp"
#include "graph/graph_view.hpp"
#include "runtime/runner.hpp"
#include "runtime/shape_specializer.hpp"
#include "graph/state.hpp"

#include <functional>
#include <memory>

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

    // The runner stack of a new infer request; `state` is the request's variables (state.hpp).
    static std::unique_ptr<Runner> make_runner(const std::shared_ptr<Impl>& model, std::vector<VariableValue>& state) {
        return model->runner_factory_(model, state);
    }

    // A dynamic model's static compiled model for these input shapes. Throws naming the shapes
    // when they do not compile.
    std::shared_ptr<Impl> specialize(const InputShapes& shapes) const { return specializer_->get(shapes); }
    size_t shape_cache_size() const { return specializer_ ? specializer_->capacity() : 0; }

    // A model cut at an op the host runs: the parts compiled around it.
    struct Cut {
        CutModel model;  // its op's type, name, attributes and bodies
        std::shared_ptr<Impl> prefix, suffix;
        // A control-flow op's bodies compiled at the shapes the prefix gives, or null with the
        // reason each does not hold there.
        std::vector<std::shared_ptr<Impl>> bodies;
        std::vector<std::string> body_errors;
        uint64_t max_loop_iterations = kDefaultMaxLoopIterations;
    };
    const Cut& cut() const { return *cut_; }

    static CompiledModel import_from(std::shared_ptr<DeviceHandle> device, std::istream& blob,
                                     const std::string& device_string, const nlohmann::json& properties);

    const DeviceHandle& device() const { return *device_; }
    const std::shared_ptr<DeviceHandle>& device_ptr() const { return device_; }
    mosaic_compiled_model* raw() const { return compiled_; }
    // The model's inputs and outputs, as applications see them.
    const std::vector<PortDesc>& inputs() const { return inputs_; }
    const std::vector<PortDesc>& outputs() const { return outputs_; }
    // Those of the compiled graph: the model's, then each variable's state (state.hpp).
    const std::vector<PortDesc>& graph_inputs() const { return graph_inputs_; }
    const std::vector<PortDesc>& graph_outputs() const { return graph_outputs_; }
    const std::vector<Variable>& variables() const { return variables_; }
    // A stateful model's initial values of its variables of dynamic shape (state.hpp), or null.
    const std::shared_ptr<Impl>& initial_model() const { return initial_; }
    const std::string& device_string() const { return device_string_; }
    // The instance compiled on ("1" for GPU.1 or DEVICE_ID 1; empty for the default one): whose
    // memory get_context() hands out.
    const std::string& instance() const { return instance_; }
    void set_instance(std::string id) { instance_ = std::move(id); }
    // The instance compile properties name (DEVICE_ID, which a device string's ".1" sets too), or "".
    static std::string instance_of(const nlohmann::json& properties);
    PropertyValue property(const std::string& key) const;
    void export_to(std::ostream& out) const;

private:
    using RunnerFactory = std::function<std::unique_ptr<Runner>(const std::shared_ptr<Impl>&, std::vector<VariableValue>&)>;

    // The builders of the forms create() chooses from.
    static std::shared_ptr<Impl> create_stateful(std::shared_ptr<DeviceHandle> device, StatelessModel stateless,
                                                 const nlohmann::json& properties, const std::string& device_string,
                                                 const Options& options);
    static std::shared_ptr<Impl> create_cut(std::shared_ptr<DeviceHandle> device, const Model& model, CutModel cut,
                                            const nlohmann::json& properties, const std::string& device_string,
                                            const Options& options);
    static std::shared_ptr<Impl> create_dynamic(std::shared_ptr<DeviceHandle> device, const Model& model,
                                                const nlohmann::json& properties, const std::string& device_string,
                                                const Options& options);
    // Compiles each body of a control-flow op that holds at the shapes its prefix gives.
    void compile_bodies(const nlohmann::json& properties, const Options& options);

    std::shared_ptr<DeviceHandle> device_;
    std::unique_ptr<HostGraph> graph_;
    mosaic_compiled_model* compiled_ = nullptr;
    std::string device_string_;
    std::string instance_;
    std::vector<PortDesc> inputs_, outputs_;
    std::vector<PortDesc> graph_inputs_, graph_outputs_;
    std::vector<Variable> variables_;
    std::shared_ptr<Impl> initial_;  // stateful models with variables of dynamic shape
    RunnerFactory runner_factory_;
    std::unique_ptr<ShapeSpecializer<Impl>> specializer_;  // dynamic models
    std::unique_ptr<Cut> cut_;                             // cut models
    std::string network_name_;  // dynamic and cut models, which have no graph of their own
};

}  // namespace mosaic
