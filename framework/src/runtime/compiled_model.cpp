#include "runtime/compiled_model_impl.hpp"
#include "runtime/infer_request_impl.hpp"
#include "graph/control_flow.hpp"
#include "graph/graph_edit.hpp"
#include "graph/shape_folding.hpp"
#include "graph/transposed_gather.hpp"
#include "runtime/memory_guard.hpp"
#include "registry/plugin_json_checks.hpp"
#include "common/port_lookup.hpp"
#include "runtime/runners.hpp"

#include <mosaic/sdk/status.hpp>

#include <algorithm>
#include <istream>
#include <ostream>
#include <sstream>

namespace mosaic {

namespace {

constexpr const char* kExportMagic = "MOSAIC-COMPILED-MODEL 1";

std::vector<PortDesc> describe_inputs(const Model& model) {
    std::vector<PortDesc> out;
    for (const Node* p : model.get_parameters()) {
        PortDesc d{Model::input_name(*p), p->output_names(0), p->output_type(0), p->output_shape(0),
                   Model::input_partial_shape(*p)};
        if (std::find(d.names.begin(), d.names.end(), p->get_friendly_name()) == d.names.end()) d.names.push_back(p->get_friendly_name());
        out.push_back(std::move(d));
    }
    return out;
}

std::vector<PortDesc> describe_outputs(const Model& model) {
    std::vector<PortDesc> out;
    for (const Node* r : model.get_results()) {
        const Output& src = r->input(0);
        PortDesc d{Model::output_name(*r), src.node->output_names(src.index), src.get_element_type(), src.get_partial_shape(),
                   PartialShape(src.get_partial_shape())};
        if (std::find(d.names.begin(), d.names.end(), r->get_friendly_name()) == d.names.end()) d.names.push_back(r->get_friendly_name());
        out.push_back(std::move(d));
    }
    return out;
}

bool has_dynamic_input(const Model& model) {
    for (const Node* p : model.get_parameters())
        if (!is_static(p->output_shape(0))) return true;
    return false;
}

nlohmann::json port_json(const std::vector<PortDesc>& ports) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& p : ports)
        j.push_back({{"name", p.name}, {"names", p.names}, {"type", to_string(p.type)}, {"shape", p.shape}});
    return j;
}

// Only static models are exported, so a port's bounds are its shape.
std::vector<PortDesc> ports_from_json(const nlohmann::json& j) {
    std::vector<PortDesc> out;
    for (const auto& p : j) {
        const Shape shape = p.at("shape").get<Shape>();
        out.push_back({p.at("name"), p.at("names").get<std::vector<std::string>>(),
                       element_type_from_string(p.at("type").get<std::string>()), shape, PartialShape(shape)});
    }
    return out;
}

// A control-flow body runs whole on one device where one runs all of it: split like a model, it
// would cross devices on every iteration or branch taken. An orchestrator that offers the choice
// (HETERO's HETERO_PLACEMENT ONE_DEVICE) is asked for it; it still splits a body no device runs alone.
nlohmann::json body_properties(const DeviceHandle& device, nlohmann::json properties) {
    for (const nlohmann::json& p : device.get_property("SUPPORTED_PROPERTIES"))
        if (p.at("name") == "HETERO_PLACEMENT") {
            properties["HETERO_PLACEMENT"] = "ONE_DEVICE";
            break;
        }
    return properties;
}

}  // namespace

void CompiledModel::Impl::compile_bodies(const nlohmann::json& properties, const Options& options) {
    const CutModel& op = cut_->model;
    // The op's inputs are the prefix's outputs; the bodies take them at the shapes it gives.
    std::vector<ops::PortInfo> node_inputs;
    for (const PortDesc& p : cut_->prefix->outputs()) node_inputs.push_back({p.type, p.shape});
    cut_->max_loop_iterations = options.max_loop_iterations;
    const nlohmann::json on_one_device = body_properties(*device_, properties);
    for (size_t b = 0; b < op.bodies.size(); ++b) {
        std::string why;
        std::shared_ptr<Model> body = body_for(op.type, op.attrs, op.bodies, b, node_inputs, why);
        cut_->bodies.push_back(nullptr);
        cut_->body_errors.push_back(why);
        if (!body) continue;
        try {
            cut_->bodies.back() = create(device_, *body, on_one_device, device_string_, options);
        } catch (const std::exception& e) {
            throw std::runtime_error(op.type + " '" + op.name + "': its " + body_label(op.type, b) +
                                     " does not compile on '" + device_string_ + "': " + sdk::describe(e));
        }
    }
}

CompiledModel::Impl::Impl(std::shared_ptr<DeviceHandle> device, std::unique_ptr<HostGraph> graph,
                          mosaic_compiled_model* compiled, std::string device_string, std::vector<PortDesc> inputs,
                          std::vector<PortDesc> outputs)
    : device_(std::move(device)), graph_(std::move(graph)), compiled_(compiled),
      device_string_(std::move(device_string)), inputs_(std::move(inputs)), outputs_(std::move(outputs)),
      runner_factory_([](const std::shared_ptr<Impl>& model, std::vector<VariableValue>&) {
          return make_device_runner(model);
      }) {
    if (graph_) {
        inputs_ = describe_inputs(graph_->model());
        outputs_ = describe_outputs(graph_->model());
    }
    graph_inputs_ = inputs_;
    graph_outputs_ = outputs_;
}

CompiledModel::Impl::~Impl() {
    // The plugin's model goes before the graph whose constants it may point into.
    if (compiled_) device_->api().release_compiled_model(compiled_);
}

std::string CompiledModel::Impl::instance_of(const nlohmann::json& properties) {
    const auto it = properties.find("DEVICE_ID");
    if (it == properties.end()) return "";
    return it->is_string() ? it->get<std::string>() : it->dump();
}

std::shared_ptr<CompiledModel::Impl> CompiledModel::Impl::create(std::shared_ptr<DeviceHandle> device, const Model& model,
                                                                 const nlohmann::json& properties,
                                                                 const std::string& device_string, const Options& options) {
    if (std::optional<StatelessModel> stateless = make_stateless(model))
        return create_stateful(std::move(device), std::move(*stateless), properties, device_string, options);
    if (has_dynamic_input(model)) return create_dynamic(std::move(device), model, properties, device_string, options);
    if (std::optional<CutModel> cut = cut_at_data_dependent_op(model))
        return create_cut(std::move(device), model, std::move(*cut), properties, device_string, options);
    check_tensor_sizes(model, options.max_tensor_bytes);
    std::shared_ptr<Model> folded = model.clone();
    bypass_identities(*folded);
    gather_through_transposed_constants(*folded);
    fold_shape_computations(*folded);
    auto graph = std::make_unique<HostGraph>(std::move(folded));
    mosaic_compiled_model* compiled = device->compile(graph->view(), properties);
    return std::make_shared<Impl>(device, std::move(graph), compiled, device_string);
}

std::shared_ptr<CompiledModel::Impl> CompiledModel::Impl::create_stateful(std::shared_ptr<DeviceHandle> device,
                                                                          StatelessModel stateless,
                                                                          const nlohmann::json& properties,
                                                                          const std::string& device_string,
                                                                          const Options& options) {
    // The graph compiled has the variables' ports after the model's; applications see the model's.
    std::shared_ptr<Impl> impl = create(device, *stateless.model, properties, device_string, options);
    if (stateless.initial_model)
        impl->initial_ = create(std::move(device), *stateless.initial_model, properties, device_string, options);
    size_t hidden_in = 0;
    for (const Variable& v : stateless.variables) hidden_in += v.reset_input == Variable::kNone ? 1 : 2;
    const size_t hidden_out = stateless.variables.size();
    impl->inputs_.resize(impl->graph_inputs_.size() - hidden_in);
    impl->outputs_.resize(impl->graph_outputs_.size() - hidden_out);
    impl->variables_ = std::move(stateless.variables);
    impl->runner_factory_ = [inner = std::move(impl->runner_factory_)](const std::shared_ptr<Impl>& model,
                                                                        std::vector<VariableValue>& state) {
        return make_stateful_runner(model, state, inner(model, state));
    };
    return impl;
}

std::shared_ptr<CompiledModel::Impl> CompiledModel::Impl::create_cut(std::shared_ptr<DeviceHandle> device,
                                                                     const Model& model, CutModel cut,
                                                                     const nlohmann::json& properties,
                                                                     const std::string& device_string,
                                                                     const Options& options) {
    auto impl = std::make_shared<Impl>(device, nullptr, nullptr, device_string, describe_inputs(model),
                                       describe_outputs(model));
    impl->network_name_ = model.get_friendly_name();
    impl->cut_ = std::make_unique<Cut>();
    impl->cut_->prefix = create(device, *cut.prefix, properties, device_string, options);
    impl->cut_->model = std::move(cut);
    impl->compile_bodies(properties, options);
    impl->cut_->suffix = create(device, *impl->cut_->model.suffix, properties, device_string, options);
    // The op the host runs between the parts is chosen here, once.
    const CutModel& at = impl->cut_->model;
    const OpRunnerFactory op = at.bodies.empty() ? make_data_dependent_op_runner
                        : at.type == "Loop" ? make_loop_runner
                                            : make_if_runner;
    impl->runner_factory_ = [op](const std::shared_ptr<Impl>& model, std::vector<VariableValue>& state) {
        return make_cut_runner(model, op(model, state), state);
    };
    return impl;
}

std::shared_ptr<CompiledModel::Impl> CompiledModel::Impl::create_dynamic(std::shared_ptr<DeviceHandle> device,
                                                                         const Model& model,
                                                                         const nlohmann::json& properties,
                                                                         const std::string& device_string,
                                                                         const Options& options) {
    // Nothing is compiled until an inference brings shapes. The model is kept (weights shared, not
    // copied) to be reshaped for each of them.
    std::shared_ptr<const Model> source = model.clone();
    auto impl = std::make_shared<Impl>(device, nullptr, nullptr, device_string, describe_inputs(*source),
                                       describe_outputs(*source));
    auto compile = [device, source, properties, device_string, options](const InputShapes& shapes) {
        const std::vector<Node*> params = source->get_parameters();
        std::map<std::string, PartialShape> reshape;
        std::string at;
        for (size_t i = 0; i < params.size(); ++i) {
            reshape[params[i]->get_friendly_name()] = shapes[i];
            at += (at.empty() ? "" : ", ") + Model::input_name(*params[i]) + " " + to_string(shapes[i]);
        }
        std::shared_ptr<Model> specialized = source->clone();
        try {
            specialized->reshape(reshape);
            return create(device, *specialized, properties, device_string, options);
        } catch (const std::exception& e) {
            const std::string what = "model '" + source->get_friendly_name() + "' at input shapes " + at +
                                     " does not compile on '" + device_string + "': " + e.what();
            // A device out of memory stays so (the request may free room and compile again).
            const auto* status = dynamic_cast<const sdk::Error*>(&e);
            if (status && status->code() == MOSAIC_ERROR_OUT_OF_MEMORY) throw sdk::Error(MOSAIC_ERROR_OUT_OF_MEMORY, what);
            throw std::runtime_error(what);
        }
    };
    impl->specializer_ = std::make_unique<ShapeSpecializer<Impl>>(compile, options.shape_cache_size);
    impl->network_name_ = source->get_friendly_name();
    impl->runner_factory_ = [](const std::shared_ptr<Impl>& model, std::vector<VariableValue>& state) {
        return make_dynamic_runner(model, state);
    };
    return impl;
}

PropertyValue CompiledModel::Impl::property(const std::string& key) const {
    if (key == "SUPPORTED_PROPERTIES")
        return nlohmann::json::array({"OPTIMAL_NUMBER_OF_INFER_REQUESTS", "EXECUTION_DEVICES", "NETWORK_NAME"});
    if (cut_) return key == "NETWORK_NAME" ? PropertyValue(network_name_) : cut_->suffix->property(key);
    if (specializer_) {
        if (key == kShapeCacheSizeKey) return specializer_->capacity();
        if (key == kShapeCompilationsKey) return specializer_->stats().compiled;
        // The device's answers come from a specialization once one is compiled.
        if (std::shared_ptr<Impl> latest = specializer_->latest()) return latest->property(key);
        if (key == "OPTIMAL_NUMBER_OF_INFER_REQUESTS") return 1;
        if (key == "EXECUTION_DEVICES") return nlohmann::json::array({device_->name()});
        if (key == "NETWORK_NAME") return network_name_;
        throw std::runtime_error("compiled-model property '" + key + "' of a dynamic model is known once an inference has compiled a shape");
    }
    std::string text;
    mosaic_status* status = device_->api().compiled_property(compiled_, key.c_str(), sdk::string_sink(text));
    if (!status) return plugin_compiled_property(device_->sender(), key, text);
    // Defaults the host can answer for devices that do not.
    if (status->code == MOSAIC_ERROR_NOT_FOUND) {
        if (key == "OPTIMAL_NUMBER_OF_INFER_REQUESTS") { status->release(status); return 1; }
        if (key == "EXECUTION_DEVICES") { status->release(status); return nlohmann::json::array({device_->name()}); }
        if (key == "NETWORK_NAME" && graph_) { status->release(status); return graph_->model().get_friendly_name(); }
    }
    device_->check(status, "reading compiled-model property '" + key + "'");
    return nullptr;
}

void CompiledModel::Impl::export_to(std::ostream& out) const {
    if (specializer_)
        throw std::runtime_error("a model compiled with dynamic input shapes cannot be exported; reshape it to static "
                                 "shapes (Model::reshape) and compile that to export it");
    if (cut_)
        throw std::runtime_error("a model whose shapes depend on values computed when it runs (" + cut_->model.type +
                                 " '" + cut_->model.name + "') cannot be exported; compile it from the model");
    if (!variables_.empty())
        throw std::runtime_error("a stateful model (ReadValue / Assign) cannot be exported yet; compile it from the model");
    if (!device_->library().has_export())
        throw std::runtime_error("device '" + device_->name() + "' cannot export compiled models");
    std::string blob;
    device_->check(device_->api().export_model(compiled_, sdk::string_sink(blob)), "exporting the compiled model");
    nlohmann::json header = {{"device", device_->name()}, {"inputs", port_json(inputs_)},
                             {"outputs", port_json(outputs_)}, {"size", blob.size()}};
    out << kExportMagic << "\n" << header.dump() << "\n";
    out.write(blob.data(), static_cast<std::streamsize>(blob.size()));
    if (!out) throw std::runtime_error("writing the exported model failed");
}

CompiledModel CompiledModel::Impl::import_from(std::shared_ptr<DeviceHandle> device, std::istream& in,
                                               const std::string& device_string, const nlohmann::json& properties) {
    std::string magic, header_line;
    std::getline(in, magic);
    if (magic != kExportMagic)
        throw std::runtime_error("import_model: the stream is not a Mosaic compiled model (expected '" +
                                 std::string(kExportMagic) + "' first)");
    std::getline(in, header_line);
    // The whole header is checked before anything is allocated or handed to the plugin.
    nlohmann::json header;
    std::vector<PortDesc> inputs, outputs;
    size_t size = 0;
    try {
        header = nlohmann::json::parse(header_line);
        inputs = ports_from_json(header.at("inputs"));
        outputs = ports_from_json(header.at("outputs"));
        size = header.at("size").get<size_t>();
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("import_model: corrupt header: ") + e.what());
    }
    if (header.value("device", "") != device->name())
        throw std::runtime_error("import_model: the blob was exported from device '" + header.value("device", "") +
                                 "', not '" + device->name() + "'");
    if (!device->library().has_import())
        throw std::runtime_error("device '" + device->name() + "' cannot import compiled models");
    // Read in pieces: the size comes from the stream and may be a lie.
    std::string blob;
    char chunk[1 << 16];
    while (blob.size() < size && in) {
        in.read(chunk, static_cast<std::streamsize>(std::min(sizeof(chunk), size - blob.size())));
        blob.append(chunk, static_cast<size_t>(in.gcount()));
    }
    if (blob.size() != size)
        throw std::runtime_error("import_model: the blob is truncated (" + std::to_string(blob.size()) + " of " +
                                 std::to_string(size) + " bytes)");
    mosaic_compiled_model* compiled = nullptr;
    device->check(device->api().import_model(device->raw(), blob.data(), blob.size(), properties.dump().c_str(), &compiled),
                  "importing a compiled model");
    auto imported = std::make_shared<Impl>(device, nullptr, compiled, device_string, std::move(inputs), std::move(outputs));
    imported->set_instance(instance_of(properties));
    return CompiledModel(std::move(imported));
}

// ---- public wrapper ----

namespace {
CompiledModel::Impl& checked(const std::shared_ptr<CompiledModel::Impl>& impl) {
    if (!impl) throw std::logic_error("CompiledModel is empty; get one from Core::compile_model");
    return *impl;
}
}  // namespace

const std::vector<PortDesc>& CompiledModel::inputs() const { return checked(impl_).inputs(); }
const std::vector<PortDesc>& CompiledModel::outputs() const { return checked(impl_).outputs(); }

namespace {
// The first name is the one applications use (PortDesc::name), then every name the port answers to.
std::vector<std::string> names_of(const PortDesc& port) {
    std::vector<std::string> names{port.name};
    names.insert(names.end(), port.names.begin(), port.names.end());
    return names;
}

const std::string kOwner = "the compiled model";
}  // namespace

const PortDesc& CompiledModel::input() const { return ports::single(inputs(), kOwner, "input", names_of); }
const PortDesc& CompiledModel::input(size_t index) const { return ports::at(inputs(), index, kOwner, "input", names_of); }
const PortDesc& CompiledModel::input(const std::string& name) const {
    return ports::named(inputs(), name, kOwner, "input", names_of);
}
const PortDesc& CompiledModel::output() const { return ports::single(outputs(), kOwner, "output", names_of); }
const PortDesc& CompiledModel::output(size_t index) const {
    return ports::at(outputs(), index, kOwner, "output", names_of);
}
const PortDesc& CompiledModel::output(const std::string& name) const {
    return ports::named(outputs(), name, kOwner, "output", names_of);
}
const std::string& CompiledModel::device() const { return checked(impl_).device_string(); }
InferRequest CompiledModel::create_infer_request() {
    checked(impl_);
    return InferRequest(std::make_shared<InferRequest::Impl>(impl_));
}
PropertyValue CompiledModel::get_property(const std::string& key) const { return checked(impl_).property(key); }
void CompiledModel::export_model(std::ostream& out) const { checked(impl_).export_to(out); }

}  // namespace mosaic
