#include "runtime/core_impl.hpp"
#include "runtime/memory_guard.hpp"

#include "runtime/compiled_model_impl.hpp"
#include "graph/control_flow.hpp"
#include "graph/state.hpp"
#include "isolation/proxy.hpp"
#include "readers/model_reader.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <set>
#include <stdexcept>

namespace mosaic {

namespace {
std::string trimmed(const std::string& s) {
    const size_t first = s.find_first_not_of(" \t"), last = s.find_last_not_of(" \t");
    return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
}

// "GPU, CPU" -> {"GPU", "CPU"}: spaces after commas are what people type.
std::vector<std::string> device_list(const std::string& text) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        out.push_back(trimmed(text.substr(start, comma - start)));
        start = comma + 1;
    }
    return out;
}

std::string joined(const std::vector<std::string>& items) {
    std::string s;
    for (const auto& i : items) s += (s.empty() ? "" : ",") + i;
    return s;
}

bool declares(DeviceHandle& device, const std::string& key) {
    const nlohmann::json supported = device.get_property("SUPPORTED_PROPERTIES");
    for (const auto& p : supported)  // canonical: DeviceHandle checked the shape
        if (p["name"] == key) return true;
    return false;
}
}  // namespace

DeviceSpec parse_device_spec(const std::string& raw) {
    DeviceSpec spec;
    const std::string text = trimmed(raw);
    const size_t colon = text.find(':');
    std::string head = trimmed(text.substr(0, colon));
    if (colon != std::string::npos) spec.list = joined(device_list(text.substr(colon + 1)));
    const size_t dot = head.find('.');
    spec.name = head.substr(0, dot);
    if (dot != std::string::npos) spec.id = head.substr(dot + 1);
    if (spec.name.empty()) throw std::runtime_error("device '" + text + "': the device name is empty");
    return spec;
}

nlohmann::json to_json(const AnyMap& map) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : map) j[k] = v;
    return j;
}

Core::Impl::Impl(std::string registry_path)
    : registry_path_(std::move(registry_path)), host_(std::make_shared<HostContext>()) {
    host_->table = make_core_host_api(host_.get());
    RegistryFile file = read_registry(registry_path_);
    for (auto& e : file.entries) entries_.push_back({std::move(e), nullptr});
    file_problems_ = std::move(file.problems);
}

Core::Impl::Entry* Core::Impl::find(const std::string& name) {
    for (auto& e : entries_)
        if (e.registry.device == name) return &e;
    return nullptr;
}

void Core::Impl::load(Entry& entry) {
    if (entry.handle || !entry.registry.problem.empty()) return;
    try {
        const RegistryEntry& r = entry.registry;
        auto library = r.isolation.isolated ? load_isolated(r.library, r.device, r.isolation)
                                            : PluginLibrary::load(r.library);
        entry.handle = std::make_shared<DeviceHandle>(library, host_, entry.registry.device, entry.registry.properties);
    } catch (const std::exception& e) {
        entry.registry.problem = "device '" + entry.registry.device + "' (registry entry " + entry.registry.source +
                                 ") is unavailable: " + e.what();
    }
}

std::shared_ptr<DeviceHandle> Core::Impl::device(const std::string& name) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    Entry* entry = find(name);
    if (!entry) {
        std::string known;
        for (const auto& e : entries_) known += (known.empty() ? "" : ", ") + e.registry.device;
        for (const auto& p : file_problems_)
            if (p.device == name) throw std::runtime_error(p.message);
        throw std::runtime_error("device '" + name + "' is not registered in '" + registry_path_ + "' (registered: " +
                                 (known.empty() ? std::string("none") : known) +
                                 "); add it to the registry or call Core::register_plugin");
    }
    load(*entry);
    if (!entry->handle) throw std::runtime_error(entry->registry.problem);
    return entry->handle;
}

std::vector<std::string> Core::Impl::available_devices() {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    std::vector<std::string> out;
    for (auto& e : entries_) {
        load(e);
        if (!e.handle) continue;
        std::vector<std::string> ids;
        try {
            ids = e.handle->ids();
        } catch (const std::exception& ex) {
            e.registry.problem = ex.what();
            e.handle.reset();
            continue;
        }
        if (ids.size() <= 1) out.push_back(e.registry.device);
        for (const auto& id : ids.size() > 1 ? ids : std::vector<std::string>{}) out.push_back(e.registry.device + "." + id);
    }
    return out;
}

std::vector<RegistryProblem> Core::Impl::problems() const {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    std::vector<RegistryProblem> out = file_problems_;
    for (const auto& e : entries_)
        if (!e.registry.problem.empty()) out.push_back({e.registry.device, registry_path_, e.registry.problem});
    return out;
}

void Core::Impl::register_plugin(const std::string& library, const std::string& name, const nlohmann::json& properties) {
    if (std::string bad = device_name_problem(name); !bad.empty()) throw std::runtime_error("register_plugin: " + bad);
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    if (find(name))
        throw std::runtime_error("register_plugin: device '" + name + "' is already registered; unload_plugin it first");
    Entry entry;
    entry.registry.device = name;
    entry.registry.library = std::filesystem::absolute(library).lexically_normal().string();
    entry.registry.properties = properties;
    entry.registry.source = "register_plugin";
    // Loaded at once so that a bad library is reported to the caller, not on first use.
    auto lib = PluginLibrary::load(entry.registry.library);
    entry.handle = std::make_shared<DeviceHandle>(lib, host_, name, properties);
    entries_.push_back(std::move(entry));
}

void Core::Impl::unload_plugin(const std::string& name) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.registry.device == name; });
    if (it == entries_.end()) throw std::runtime_error("unload_plugin: device '" + name + "' is not registered");
    entries_.erase(it);
}

nlohmann::json Core::Impl::call_properties(const DeviceSpec& spec, const AnyMap& given) {
    nlohmann::json props = to_json(given);
    if (!spec.list.empty()) {
        if (props.contains("MULTI_DEVICE_PRIORITIES") && props["MULTI_DEVICE_PRIORITIES"] != spec.list)
            throw std::runtime_error("device '" + spec.name + ":" + spec.list + "' disagrees with MULTI_DEVICE_PRIORITIES=" +
                                     props["MULTI_DEVICE_PRIORITIES"].dump() + "; give the device list once");
        props["MULTI_DEVICE_PRIORITIES"] = spec.list;
    }
    if (!spec.id.empty()) {
        std::vector<std::string> ids = device(spec.name)->ids();
        if (std::find(ids.begin(), ids.end(), spec.id) == ids.end()) {
            std::string known;
            for (const auto& id : ids) known += (known.empty() ? "" : ", ") + spec.name + "." + id;
            throw std::runtime_error("device '" + spec.name + "." + spec.id + "' does not exist (" +
                                     (known.empty() ? spec.name + " has no numbered instances" : "available: " + known) + ")");
        }
        props["DEVICE_ID"] = spec.id;
    }
    return props;
}

// ---- Core ----

namespace {
std::string registry_from_environment() {
    const char* env = std::getenv("MOSAIC_PLUGINS");
    return env && *env ? std::string(env) : default_registry_path();
}
}  // namespace

Core::Core() : Core(registry_from_environment()) {}
void Core::Impl::bind_host(const std::shared_ptr<Impl>& self) { host_->core = self; }

Core::Core(const std::string& registry_path) : impl_(std::make_shared<Impl>(registry_path)) { impl_->bind_host(impl_); }
Core::~Core() = default;

const std::string& Core::registry_path() const { return impl_->registry_path(); }
std::vector<std::string> Core::get_available_devices() { return impl_->available_devices(); }
std::vector<RegistryProblem> Core::problems() const { return impl_->problems(); }

void Core::register_plugin(const std::string& library_path, const std::string& device_name, const AnyMap& properties) {
    impl_->register_plugin(library_path, device_name, to_json(properties));
}

void Core::unload_plugin(const std::string& device_name) { impl_->unload_plugin(device_name); }

void Core::Impl::check_orchestrator_keys(const DeviceSpec& spec, DeviceHandle& orchestrator, const AnyMap& given) {
    if (!declares(orchestrator, "MULTI_DEVICE_PRIORITIES")) return;
    std::string list_text = spec.list;
    if (auto it = given.find("MULTI_DEVICE_PRIORITIES"); it != given.end() && it->second.is_string())
        list_text = joined(device_list(it->second.get<std::string>()));
    if (list_text.empty()) {
        const nlohmann::json current = orchestrator.get_property("MULTI_DEVICE_PRIORITIES");
        if (current.is_string()) list_text = joined(device_list(current.get<std::string>()));
    }
    // Without a list yet, any registered device may come to take the key.
    std::vector<std::string> candidates;
    if (!list_text.empty()) {
        for (const auto& d : device_list(list_text)) candidates.push_back(parse_device_spec(d).name);
    } else {
        for (const auto& d : available_devices()) {
            const std::string base = parse_device_spec(d).name;
            if (base != spec.name && std::find(candidates.begin(), candidates.end(), base) == candidates.end())
                candidates.push_back(base);
        }
    }
    const std::string where = list_text.empty() ? "any registered device" : spec.name + ":" + list_text;
    for (const auto& [key, value] : given) {
        if (key == "DEVICE_PROPERTIES" && value.is_object()) {
            for (const auto& [section, props] : value.items()) {
                const std::string base = parse_device_spec(section).name;
                if (!find(base))
                    throw std::runtime_error("set_property(\"" + spec.name + "\"): DEVICE_PROPERTIES has a section for '" +
                                             section + "', which is not a registered device; check the name (mosaic devices)");
                if (!list_text.empty() && std::find(candidates.begin(), candidates.end(), base) == candidates.end())
                    throw std::runtime_error("set_property(\"" + spec.name + "\"): DEVICE_PROPERTIES has a section for '" +
                                             section + "', which is not in the device list " + list_text +
                                             "; add it to MULTI_DEVICE_PRIORITIES or remove the section");
            }
        }
        if (declares(orchestrator, key)) continue;
        bool taken = false;
        for (const auto& c : candidates) {
            try {
                taken = taken || declares(*device(c), key);
            } catch (const std::exception&) {
                // A device that does not load takes no keys; compiling on it reports why.
            }
        }
        if (!taken)
            throw std::runtime_error("set_property(\"" + spec.name + "\"): property '" + key + "' is neither a " +
                                     spec.name + " property nor one of " + where +
                                     "; check the spelling, or give it to one device with DEVICE_PROPERTIES");
    }
}

void Core::set_property(const std::string& device, const AnyMap& properties) {
    DeviceSpec spec = parse_device_spec(device);
    std::shared_ptr<DeviceHandle> handle = impl_->device(spec.name);
    impl_->check_orchestrator_keys(spec, *handle, properties);
    handle->set_properties(to_json(properties));
}

PropertyValue Core::get_property(const std::string& device, const std::string& key) {
    DeviceSpec spec = parse_device_spec(device);
    const std::shared_ptr<DeviceHandle> handle = impl_->device(spec.name);
    if (key == "DEVICE_MEMORY") {
        mosaic_memory_info memory{};
        const bool figures = handle->memory_info(spec.id, memory), buffers = handle->has_buffers(spec.id);
        if (!figures && !buffers)
            throw std::runtime_error("device '" + device + "' has no device memory to report: its tensors are host "
                                     "memory (its plugin has no ABI 1.3 memory_info or buffers, or declines them)");
        nlohmann::json j = {{"buffers", buffers}};
        if (figures) {
            j["total_bytes"] = memory.total_bytes;
            j["available_bytes"] = memory.available_bytes;
            j["used_bytes"] = memory.used_bytes;
            j["shares_host_memory"] = memory.shares_host_memory != 0;
        }
        return j;
    }
    return handle->get_property(key);
}

PluginInfo Core::get_plugin_info(const std::string& device) {
    const DeviceHandle& handle = *impl_->device(parse_device_spec(device).name);
    const PluginLibrary& library = handle.library();
    const mosaic_plugin_api& api = library.api();
    PluginInfo info;
    info.library = library.path();
    info.name = api.plugin_name ? api.plugin_name : "";
    info.version = api.plugin_version ? api.plugin_version : "";
    info.abi_major = api.abi_major;
    info.abi_minor = api.abi_minor;
    info.table_size = api.struct_size;
    const std::pair<bool, const char*> optional[] = {{library.has_device_ids(), "device_ids"},
                                                     {library.has_export(), "export_model"},
                                                     {library.has_import(), "import_model"},
                                                     {library.has_start_async(), "start_async"},
                                                     {library.has_estimate_cost(), "estimate_cost"},
                                                     {library.has_memory_info(), "memory_info"},
                                                     {library.has_compiled_memory(), "compiled_memory"},
                                                     {library.has_buffers(), "buffers"},
                                                     {library.has_query_plan(), "query_plan"}};
    for (const auto& [present, name] : optional)
        if (present) info.optional_members.push_back(name);
    return info;
}

std::shared_ptr<Model> Core::read_model(const std::string& path, const std::string& weights_path) const {
    return mosaic::read_model_file(path, weights_path);
}

namespace {

// `model` with each dynamic input dimension at the lower bound of its range, at least 1 (what
// `mosaic query` sets): devices answer a query on static shapes, so a dynamic model's answer is
// the one for those shapes. The model itself when its inputs are static.
std::shared_ptr<const Model> at_smallest_shapes(const std::shared_ptr<const Model>& model) {
    std::map<std::string, PartialShape> shapes;
    for (const Node* p : model->get_parameters()) {
        const PartialShape declared = Model::input_partial_shape(*p);
        std::vector<Dimension> dims;
        bool dynamic = false;
        for (const Dimension& d : declared) {
            dynamic = dynamic || d.is_dynamic();
            dims.emplace_back(d.is_static() ? d.get_length() : std::max<int64_t>(1, d.get_min_length()));
        }
        if (dynamic) shapes[p->get_friendly_name()] = PartialShape(std::move(dims));
    }
    if (shapes.empty()) return model;
    std::shared_ptr<Model> copy = model->clone();
    try {
        copy->reshape(shapes);
    } catch (const std::exception& e) {
        std::string at;
        for (const auto& [name, shape] : shapes) at += (at.empty() ? "" : ", ") + name + " " + shape.to_string();
        throw ModelError("query_model: model '" + model->get_friendly_name() + "' has dynamic inputs, and the query asks "
                         "at their smallest shapes (" + at + "), where it does not hold: " + e.what() +
                         "; reshape the model (Model::reshape) to the shapes it will run at, then query it");
    }
    return copy;
}

}  // namespace

namespace {

// `query_body` answers a body on the device asked, without a plan (a body is never compiled on
// its own: the op's plan is the model's).
using BodyQuery = std::function<QueryResult(const std::shared_ptr<const Model>&)>;

void query_bodies(const Node& node, const std::string& device, const BodyQuery& query_body, QueryResult& result) {
    // The host runs a control-flow op and its taken body runs on the device: the op is supported
    // when every op of each body that holds at its input shapes is, and the bodies' ops are
    // answered too.
    std::set<std::string> placed;
    std::string refused, summary;
    for (size_t b = 0; b < node.bodies().size(); ++b) {
        const std::string label = body_label(node.get_type_name(), b);
        std::string why;
        std::shared_ptr<Model> body = body_for(node, b, why);
        if (!body) {
            summary += (summary.empty() ? "" : "; ") + label + " does not hold at these shapes";
            continue;
        }
        const QueryResult inner = query_body(body);
        // A body's Parameters and Results are the node's ports, not ops of the model (and their
        // names are the outer tensors' names).
        auto is_op = [&](const std::string& name) {
            const Node* n = body->find_node(name);
            return !n || (!n->is_parameter() && !n->is_result());
        };
        size_t ops = 0;
        for (const auto& [name, where] : inner.affinity) {
            if (!is_op(name)) continue;
            result.affinity[name] = where;
            placed.insert(where);
            ++ops;
        }
        for (const auto& [name, why_not] : inner.unsupported) {
            if (!is_op(name)) continue;
            result.unsupported[name] = why_not;
            refused += (refused.empty() ? "" : ", ") + name;
        }
        for (const auto& [name, text] : inner.explanation)
            if (is_op(name)) result.explanation[name] = text;
        summary += (summary.empty() ? "" : "; ") + label + ": " + std::to_string(ops) + " ops";
    }
    const DeviceSpec spec = parse_device_spec(device);
    const std::string asked = spec.id.empty() ? spec.name : spec.name + "." + spec.id;
    if (!refused.empty()) {
        result.unsupported[node.get_friendly_name()][asked] = "its bodies hold ops the device does not support: " + refused;
        return;
    }
    result.affinity[node.get_friendly_name()] = placed.size() == 1 ? *placed.begin() : device;
    result.explanation[node.get_friendly_name()] =
        "run when the model runs: the host reads the condition and runs only the body it takes (" + summary + ")";
}

// A device that does not know a control-flow op refuses the Parameters and Results joined only to
// it; they go where the op went once its bodies answered.
void place_ports_of_control_flow(const std::vector<const Node*>& ops, QueryResult& result) {
    std::map<const Node*, std::vector<const Node*>> joined;
    for (const Node* n : ops)
        for (const Output& in : n->inputs())
            if (in.node) {
                if (in.node->is_parameter()) joined[in.node].push_back(n);
                if (n->is_result()) joined[n].push_back(in.node);
            }
    for (const auto& [port, neighbours] : joined) {
        const std::string& name = port->get_friendly_name();
        if (!result.unsupported.count(name)) continue;
        std::string placed;
        for (const Node* n : neighbours) {
            auto it = result.affinity.find(n->get_friendly_name());
            if (!is_control_flow(*n) || it == result.affinity.end() || (!placed.empty() && placed != it->second)) {
                placed.clear();
                break;
            }
            placed = it->second;
        }
        if (placed.empty()) continue;
        result.unsupported.erase(name);
        result.affinity[name] = placed;
    }
}

}  // namespace

namespace {

// A stateful model is queried as it compiles, its variables made inputs and outputs (state.hpp):
// each ReadValue and Assign is then reported on the device of its variable's input, and the nodes
// the conversion added are left out of the answer.
void report_variables(const Model& stateful, QueryResult& result) {
    std::map<std::string, std::string> variable_device;  // by variable id: its input's device
    for (const Node* n : stateful.get_ordered_ops())
        if (const std::string* id = n->get_type_name() == "ReadValue" ? n->attrs().find("variable_id") : nullptr) {
            const auto found = result.affinity.find("mosaic.state/" + *id);  // state.cpp's name for it
            if (found != result.affinity.end()) variable_device[*id] = found->second;
        }
    for (auto it = result.affinity.begin(); it != result.affinity.end();)
        it = stateful.find_node(it->first) ? std::next(it) : result.affinity.erase(it);
    for (auto it = result.explanation.begin(); it != result.explanation.end();)
        it = stateful.find_node(it->first) ? std::next(it) : result.explanation.erase(it);
    for (auto it = result.unsupported.begin(); it != result.unsupported.end();)
        it = stateful.find_node(it->first) ? std::next(it) : result.unsupported.erase(it);
    for (const Node* n : stateful.get_ordered_ops()) {
        if (n->get_type_name() != "ReadValue" && n->get_type_name() != "Assign") continue;
        const std::string* id = n->attrs().find("variable_id");
        if (id && variable_device.count(*id)) result.affinity[n->get_friendly_name()] = variable_device.at(*id);
    }
}

}  // namespace

QueryResult Core::query_model_details(const std::shared_ptr<const Model>& model, const std::string& device,
                                      const AnyMap& properties) {
    return query(model, device, properties, true);
}

QueryResult Core::query(const std::shared_ptr<const Model>& model, const std::string& device, const AnyMap& properties,
                        bool with_plan) {
    if (!model) throw std::invalid_argument("query_model: the model is null");
    const std::optional<StatelessModel> stateless = make_stateless(*model);
    if (stateless) {
        QueryResult result = query(stateless->model, device, properties, with_plan);
        report_variables(*model, result);
        return result;
    }
    DeviceSpec spec = parse_device_spec(device);
    nlohmann::json props = impl_->call_properties(spec, properties);
    std::shared_ptr<DeviceHandle> handle = impl_->device(spec.name);
    HostGraph graph(*at_smallest_shapes(model), HostGraph::Affinities::ignore);
    std::vector<DeviceHandle::Support> support = handle->query(graph.view(), graph.get_ops().size(), props);
    QueryResult result;
    for (size_t n = 0; n < support.size(); ++n) {
        const Node* node = graph.get_ops()[n];
        if (is_control_flow(*node)) {
            query_bodies(*node, device, [&](const std::shared_ptr<const Model>& body) { return query(body, device, properties, false); },
                         result);
            continue;
        }
        if (support[n].supported) {
            // An orchestrator answers with the device it placed the node on in the reason field,
            // then, after a newline, why.
            const std::string& detail = support[n].reason;
            const size_t newline = detail.find('\n');
            const std::string placed = detail.substr(0, newline);
            result.affinity[node->get_friendly_name()] = placed.empty() ? device : placed;
            if (newline != std::string::npos) result.explanation[node->get_friendly_name()] = detail.substr(newline + 1);
        } else {
            // Keyed by the device asked ("HETERO" for "HETERO:A,B", "GPU.1" for "GPU.1").
            result.unsupported[node->get_friendly_name()][spec.id.empty() ? spec.name : spec.name + "." + spec.id] = support[n].reason;
        }
    }
    place_ports_of_control_flow(graph.get_ops(), result);
    // A plan that cannot be made (ops no device runs, a model that does not fit) leaves the per-op
    // answers standing and says why in the plan.
    if (with_plan) {
        try {
            result.plan = handle->query_plan(graph.view(), props);
        } catch (const std::exception& e) {
            result.plan = {{"error", e.what()}};
        }
    }
    return result;
}

SupportedOpsMap Core::query_model(const std::shared_ptr<const Model>& model, const std::string& device,
                                  const AnyMap& properties) {
    return query(model, device, properties, false).affinity;
}

namespace {

// The compile properties the framework itself answers (the memory guard and the dynamic-shape
// cache), taken out before the rest goes to the device.
uint64_t take_count(AnyMap& properties, const char* key) {
    auto it = properties.find(key);
    if (it == properties.end()) return 0;
    const PropertyValue v = it->second;
    properties.erase(it);
    uint64_t n = 0;
    if (v.is_number_unsigned()) n = v.get<uint64_t>();
    else if (v.is_number_integer() && v.get<int64_t>() > 0) n = static_cast<uint64_t>(v.get<int64_t>());
    else if (v.is_string()) {
        const std::string text = v.get<std::string>();
        size_t used = 0;
        try { n = std::stoull(text, &used); } catch (const std::exception&) { used = 0; }
        if (used != text.size() || text.empty() || text[0] == '-') n = 0;
    }
    if (n == 0) throw std::invalid_argument(std::string("property ") + key + " must be a positive integer, got " + v.dump());
    return n;
}

}  // namespace

CompiledModel Core::compile_model(const std::shared_ptr<const Model>& model, const std::string& device,
                                  const AnyMap& properties) {
    if (!model) throw std::invalid_argument("compile_model: the model is null");
    DeviceSpec spec = parse_device_spec(device);
    AnyMap device_properties = properties;
    CompiledModel::Impl::Options options;
    options.max_tensor_bytes = take_count(device_properties, kMaxTensorBytesKey);
    if (const uint64_t n = take_count(device_properties, kShapeCacheSizeKey)) options.shape_cache_size = n;
    if (const uint64_t n = take_count(device_properties, kMaxLoopIterationsKey)) options.max_loop_iterations = n;
    nlohmann::json props = impl_->call_properties(spec, device_properties);
    std::shared_ptr<DeviceHandle> handle = impl_->device(spec.name);
    if (!options.max_tensor_bytes) options.max_tensor_bytes = default_tensor_limit(*handle);
    auto compiled = CompiledModel::Impl::create(handle, *model, props, device, options);
    compiled->set_instance(CompiledModel::Impl::instance_of(props));
    return CompiledModel(std::move(compiled));
}

CompiledModel Core::compile_model(const std::string& model_path, const std::string& device, const AnyMap& properties) {
    return compile_model(read_model(model_path), device, properties);
}

CompiledModel Core::import_model(std::istream& blob, const std::string& device, const AnyMap& properties) {
    DeviceSpec spec = parse_device_spec(device);
    nlohmann::json props = impl_->call_properties(spec, properties);
    return CompiledModel::Impl::import_from(impl_->device(spec.name), blob, device, props);
}

}  // namespace mosaic
