#include "compare.hpp"

#include "common.hpp"
#include "op_cases.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <mosaic/onnx.hpp>
#include <mosaic/serialize.hpp>
#include <set>
#include <sstream>

namespace mosaic::cli {

namespace {

namespace fs = std::filesystem;

// A value a model computes: output `port` of the op named `node`.
struct ValueRef {
    std::string node;
    size_t port = 0;
};

// Every value an op computes that something reads, in topological order (not the inputs, constants
// or results). An output nothing reads (MaxPool's indices, say) is left alone: observing it would ask
// the device for a value the model never needs, which it may not compute at all.
std::vector<ValueRef> observable_values(const Model& model) {
    const std::vector<Node*> ordered = model.get_ordered_ops();
    std::set<std::pair<const Node*, size_t>> read;
    for (const Node* n : ordered)
        for (const Output& in : n->inputs()) read.insert({in.node, in.index});
    std::vector<ValueRef> out;
    for (const Node* n : ordered) {
        if (n->is_parameter() || n->is_constant() || n->is_result()) continue;
        for (size_t o = 0; o < n->output_count(); ++o)
            if (read.count({n, o})) out.push_back({n->get_friendly_name(), o});
    }
    return out;
}

// The model with `values` made outputs too, after its own.
std::shared_ptr<Model> observing(const Model& model, const std::vector<ValueRef>& values) {
    std::shared_ptr<Model> copy = model.clone();
    for (const ValueRef& v : values)
        copy->add_result(copy->find_node(v.node)->output(v.port), "mosaic_compare/" + v.node + ":" + std::to_string(v.port));
    copy->validate();
    return copy;
}

// Runs `model` once on `device`; every output, in the model's order.
std::vector<Tensor> run_on(Core& core, const std::shared_ptr<const Model>& model, const std::string& device,
                           const AnyMap& properties, const std::vector<std::pair<std::string, Tensor>>& inputs) {
    CompiledModel compiled = compile_model(core, model, device, properties);
    InferRequest request = compiled.create_infer_request();
    for (const auto& [name, tensor] : inputs) request.set_tensor(name, tensor);
    request.infer();
    std::vector<Tensor> out;
    for (size_t i = 0; i < compiled.outputs().size(); ++i) out.push_back(request.get_tensor(compiled.output(i)).clone());
    return out;
}

double value_at(const Tensor& t, size_t i) {
    return op_cases::load(t.get_element_type(), static_cast<const uint8_t*>(t.data()) + i * element_size(t.get_element_type()));
}

// `a` (the device's) against `b` (the against device's).
void compare_values(const Tensor& a, const Tensor& b, const CompareSettings& s, ValueComparison& c) {
    c.element_type = b.get_element_type();
    c.shape = b.get_shape();
    if (a.get_element_type() != b.get_element_type() || a.get_shape() != b.get_shape()) {
        c.mismatch = "the device gives " + std::string(to_string(a.get_element_type())) + " " + to_string(a.get_shape()) +
                     ", the against device " + to_string(b.get_element_type()) + " " + to_string(b.get_shape());
        c.exceeds = true;
        return;
    }
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, largest = 0;
    const size_t n = b.get_size();
    for (size_t i = 0; i < n; ++i) {
        const double x = value_at(a, i), y = value_at(b, i);
        if (std::isnan(x) != std::isnan(y)) {
            c.mismatch = "element " + std::to_string(i) + " is " + std::to_string(x) + " on the device and " +
                         std::to_string(y) + " on the against device";
            c.max_abs = std::numeric_limits<double>::infinity();
            continue;
        }
        if (std::isnan(y) || (std::isinf(x) && x == y)) continue;
        c.max_abs = std::max(c.max_abs, std::fabs(x - y));
        if (std::isfinite(y)) lo = std::min(lo, y), hi = std::max(hi, y), largest = std::max(largest, std::fabs(y));
    }
    const double range = hi > lo ? hi - lo : largest;
    c.of_range = range > 0 ? c.max_abs / range : (c.max_abs > 0 ? std::numeric_limits<double>::infinity() : 0.0);
    c.exceeds = !c.mismatch.empty() || c.max_abs > s.atol + s.rtol * largest;
}

ValueComparison describe_value(const Model& model, const ValueRef& v) {
    const Node* n = model.find_node(v.node);
    ValueComparison c;
    c.node = v.node;
    c.port = v.port;
    c.type = n->get_type_name();
    c.version = n->version();
    return c;
}

// The first exceeding value whose op's inputs were all within tolerance (inputs, constants and
// values not observed count as within); -1 when none exceeds.
long first_divergence(const Model& model, const std::vector<ValueComparison>& values) {
    std::map<std::pair<std::string, size_t>, bool> exceeded;
    for (const ValueComparison& v : values) exceeded[{v.node, v.port}] = v.exceeds;
    for (size_t i = 0; i < values.size(); ++i) {
        if (!values[i].exceeds) continue;
        bool inputs_within = true;
        for (const Output& in : model.find_node(values[i].node)->inputs()) {
            auto it = exceeded.find({in.node->get_friendly_name(), in.index});
            if (it != exceeded.end() && it->second) inputs_within = false;
        }
        if (inputs_within) return static_cast<long>(i);
    }
    for (size_t i = 0; i < values.size(); ++i)
        if (values[i].exceeds) return static_cast<long>(i);  // every one read a wrong input: the first
    return -1;
}

// A model input's tensor, by the input's name.
const Tensor* input_named(const std::vector<std::pair<std::string, Tensor>>& inputs, const std::string& name) {
    for (const auto& [n, t] : inputs)
        if (n == name) return &t;
    return nullptr;
}

// Small integer values (shapes, axes, indices) are known when a model is built, as the model's own
// folding would know them: shape inference reads them.
bool is_build_time_value(const Tensor& t) { return is_integral(t.get_element_type()) && t.get_size() <= 64; }

// `op` and the ops it reads from up to `depth` producers back, as a model of their own. What they
// read from outside becomes an input (named "<op>:<port>" of the value), or a constant when it is a
// constant or a small integer value (`values`: each outside value as the against device computes it).
struct Chain {
    std::shared_ptr<Model> model;
    std::vector<Tensor> inputs;  // per Parameter of `model`, in order
    size_t ops = 0;
};

Chain chain_of(const Model& model, const Node* op, size_t depth,
               const std::map<std::pair<std::string, size_t>, Tensor>& values) {
    std::set<const Node*> members{op};
    std::vector<const Node*> frontier{op};
    for (size_t d = 0; d < depth; ++d) {
        std::vector<const Node*> next;
        for (const Node* n : frontier)
            for (const Output& in : n->inputs())
                if (!in.node->is_parameter() && !in.node->is_constant() && in.node->bodies().empty() &&
                    members.insert(in.node).second)
                    next.push_back(in.node);
        frontier = std::move(next);
    }
    Chain chain{std::make_shared<Model>("chain_" + op_cases::sanitize(op->get_friendly_name())), {}, members.size()};
    std::map<std::pair<const Node*, size_t>, Output> mapped;
    for (const Node* n : model.get_ordered_ops()) {
        if (!members.count(n)) continue;
        std::vector<Output> ins;
        for (const Output& in : n->inputs()) {
            auto it = mapped.find({in.node, in.index});
            if (it == mapped.end()) {
                const std::string name = in.node->get_friendly_name() + ":" + std::to_string(in.index);
                Node* made = nullptr;
                if (in.node->is_constant()) {
                    made = chain.model->add_constant(in.get_element_type(), in.get_shape(), in.node->constant_data(), name);
                } else {
                    const Tensor& value = values.at({in.node->get_friendly_name(), in.index});
                    if (is_build_time_value(value)) {
                        made = chain.model->add_constant(value.get_element_type(), value.get_shape(),
                                                         Buffer::copy_of(value.data(), value.get_byte_size()), name);
                    } else {
                        made = chain.model->add_parameter(name, value.get_element_type(), value.get_shape());
                        chain.inputs.push_back(value);
                    }
                }
                it = mapped.emplace(std::make_pair(in.node, in.index), made->output(0)).first;
            }
            ins.push_back(it->second);
        }
        Node* copy = chain.model->add_node(n->get_type_name(), n->version(), ins, n->attrs(), n->get_friendly_name());
        for (size_t o = 0; o < n->output_count(); ++o) mapped.emplace(std::make_pair(n, o), copy->output(o));
    }
    for (size_t o = 0; o < op->output_count(); ++o)
        chain.model->add_result(mapped.at({op, o}), op->get_friendly_name() + ":" + std::to_string(o));
    chain.model->validate();
    return chain;
}

std::string number(double v) {
    std::ostringstream s;
    s << std::setprecision(3) << v;
    return s.str();
}

std::string op_label(const ValueComparison& v) {
    return "'" + v.node + "' (" + v.type + "-" + v.version + (v.port ? ", output " + std::to_string(v.port) : "") + ")";
}

}  // namespace

ComparisonReport compare_devices(Core& core, const std::shared_ptr<const Model>& model,
                                 const std::vector<std::pair<std::string, Tensor>>& inputs, const CompareSettings& s) {
    ComparisonReport report;
    const size_t model_outputs = model->get_results().size();
    const std::vector<ValueRef> values = observable_values(*model);
    const std::shared_ptr<Model> all = observing(*model, values);
    const std::vector<Tensor> against = run_on(core, all, s.against, s.against_properties, inputs);
    const std::vector<Tensor> device = run_on(core, all, s.device, s.device_properties, inputs);
    for (size_t i = 0; i < values.size(); ++i) {
        ValueComparison c = describe_value(*model, values[i]);
        compare_values(device.at(model_outputs + i), against.at(model_outputs + i), s, c);
        report.values.push_back(std::move(c));
    }

    // The model as it is, every fusion allowed.
    const std::vector<Tensor> whole = run_on(core, model, s.device, s.device_properties, inputs);
    const std::vector<Node*> results = model->get_results();
    long first_wrong_output = -1;
    for (size_t o = 0; o < model_outputs; ++o) {
        ValueComparison c;
        c.node = Model::output_name(*results[o]);
        c.type = "Result";
        c.version = "opset1";
        compare_values(whole.at(o), against.at(o), s, c);
        if (c.exceeds && first_wrong_output < 0) first_wrong_output = static_cast<long>(o);
        report.outputs.push_back(std::move(c));
    }

    report.first_divergence = first_divergence(*model, report.values);
    if (report.first_divergence < 0 && first_wrong_output >= 0) {
        // Wrong only where the device may fuse: observe one value at a time, from the first to the
        // op that computes the wrong output, and find the first that goes wrong (bisection).
        const Output source = results[static_cast<size_t>(first_wrong_output)]->input(0);
        size_t hi = values.size() - 1;
        for (size_t i = 0; i < values.size(); ++i)
            if (values[i].node == source.node->get_friendly_name() && values[i].port == source.index) hi = i;
        size_t lo = 0;
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            const std::vector<Tensor> one = run_on(core, observing(*model, {values[mid]}), s.device, s.device_properties, inputs);
            ValueComparison c = describe_value(*model, values[mid]);
            compare_values(one.at(model_outputs), against.at(model_outputs + mid), s, c);
            if (c.exceeds) {
                report.values[mid] = c;
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        report.first_divergence = static_cast<long>(lo);
        report.found_by_bisection = true;
        if (!report.values[lo].exceeds) {  // the output's own op, as the model ran it
            report.values[lo].max_abs = report.outputs[static_cast<size_t>(first_wrong_output)].max_abs;
            report.values[lo].of_range = report.outputs[static_cast<size_t>(first_wrong_output)].of_range;
            report.values[lo].exceeds = true;
        }
    }

    if (report.first_divergence >= 0) {
        const ValueComparison& v = report.values[static_cast<size_t>(report.first_divergence)];
        report.verdict = "first divergence: op " + op_label(v) + ", max |error| " + number(v.max_abs) + " (" +
                         number(v.of_range) + " of its range)" + (v.mismatch.empty() ? "" : ": " + v.mismatch);
        report.verdict += report.found_by_bisection
                              ? "; every value agrees when each is observed, so the error is in what " + s.device +
                                    " fuses into this op (observed one value at a time, the first wrong one)"
                              : ", its inputs within tolerance";
    } else {
        report.verdict = s.device + " agrees with " + s.against + " on all " + std::to_string(report.values.size()) +
                         " values and " + std::to_string(report.outputs.size()) + " outputs (rtol " + number(s.rtol) +
                         ", atol " + number(s.atol) + ")";
    }
    return report;
}

nlohmann::json to_json(const ComparisonReport& report) {
    auto value_json = [](const ValueComparison& v) {
        nlohmann::json j{{"node", v.node},         {"type", v.type},         {"port", v.port},
                         {"element_type", to_string(v.element_type)}, {"shape", v.shape},
                         {"max_abs", std::isfinite(v.max_abs) ? nlohmann::json(v.max_abs) : nlohmann::json("inf")},
                         {"of_range", std::isfinite(v.of_range) ? nlohmann::json(v.of_range) : nlohmann::json("inf")},
                         {"exceeds", v.exceeds}};
        if (!v.mismatch.empty()) j["mismatch"] = v.mismatch;
        return j;
    };
    nlohmann::json j{{"values", nlohmann::json::array()}, {"outputs", nlohmann::json::array()}};
    for (const auto& v : report.values) j["values"].push_back(value_json(v));
    for (const auto& v : report.outputs) j["outputs"].push_back(value_json(v));
    j["first_divergence"] = report.first_divergence < 0 ? nlohmann::json(nullptr)
                                                        : value_json(report.values[static_cast<size_t>(report.first_divergence)]);
    j["found_by_bisection"] = report.found_by_bisection;
    j["verdict"] = report.verdict;
    return j;
}

void print_report(std::ostream& out, const ComparisonReport& report, const CompareSettings& s) {
    out << s.device << " against " << s.against << ", per value in topological order (max |error|, and over the value's range):\n";
    for (size_t i = 0; i < report.values.size(); ++i) {
        const ValueComparison& v = report.values[i];
        out << (static_cast<long>(i) == report.first_divergence ? "  >> " : v.exceeds ? "   ! " : "     ") << std::left
            << std::setw(48) << (v.node + (v.port ? ":" + std::to_string(v.port) : "")) << " " << std::setw(22) << v.type
            << " " << std::setw(10) << number(v.max_abs) << " " << number(v.of_range) << "\n";
    }
    out << "Outputs, the model run as it is:\n";
    for (const ValueComparison& v : report.outputs)
        out << (v.exceeds ? "   ! " : "     ") << std::left << std::setw(48) << v.node << " " << std::setw(22) << ""
            << " " << std::setw(10) << number(v.max_abs) << " " << number(v.of_range) << "\n";
    out << report.verdict << "\n";
}

std::string save_chain_case(Core& core, const std::shared_ptr<const Model>& model,
                            const std::vector<std::pair<std::string, Tensor>>& inputs, const CompareSettings& s,
                            const ComparisonReport& report, size_t index, const std::string& dir, size_t max_depth) {
    const Node* op = model->find_node(report.values.at(index).node);
    // Every value the model computes, as the against device computes it (what a chain reads).
    const std::vector<ValueRef> all = observable_values(*model);
    const std::vector<Tensor> against = run_on(core, observing(*model, all), s.against, s.against_properties, inputs);
    std::map<std::pair<std::string, size_t>, Tensor> values;
    const size_t model_outputs = model->get_results().size();
    for (size_t i = 0; i < all.size(); ++i) values.emplace(std::make_pair(all[i].node, all[i].port), against.at(model_outputs + i));
    for (const Node* p : model->get_parameters())
        if (const Tensor* t = input_named(inputs, Model::input_name(*p))) values.emplace(std::make_pair(p->get_friendly_name(), 0), *t);

    size_t previous_ops = 0;
    for (size_t depth = 1; depth <= max_depth; ++depth) {
        const Chain chain = chain_of(*model, op, depth, values);
        if (chain.ops == previous_ops) break;  // nothing more upstream to add
        previous_ops = chain.ops;
        std::vector<std::pair<std::string, Tensor>> chain_inputs;
        const std::vector<Node*> parameters = chain.model->get_parameters();
        for (size_t i = 0; i < parameters.size(); ++i)
            chain_inputs.emplace_back(Model::input_name(*parameters[i]), chain.inputs[i]);
        const std::vector<Tensor> on_device = run_on(core, chain.model, s.device, s.device_properties, chain_inputs);
        bool exceeds = false;
        for (size_t o = 0; o < op->output_count(); ++o) {
            ValueComparison c;
            compare_values(on_device.at(o), values.at({op->get_friendly_name(), o}), s, c);
            exceeds = exceeds || c.exceeds;
        }
        if (!exceeds) continue;
        const fs::path folder = fs::path(dir) / (op_cases::sanitize(op->get_friendly_name()) + "_chain");
        const fs::path data = folder / "test_data_set_0";
        fs::create_directories(data);
        serialize(*chain.model, (folder / "model.xml").string());
        for (size_t i = 0; i < chain_inputs.size(); ++i)
            onnx::write_tensor_file((data / ("input_" + std::to_string(i) + ".pb")).string(), chain_inputs[i].second,
                                    chain_inputs[i].first);
        for (size_t o = 0; o < op->output_count(); ++o)
            onnx::write_tensor_file((data / ("output_" + std::to_string(o) + ".pb")).string(),
                                    values.at({op->get_friendly_name(), o}), Model::output_name(*chain.model->get_results()[o]));
        return folder.string();
    }
    return "";
}

std::string save_op_case(Core& core, const std::shared_ptr<const Model>& model,
                         const std::vector<std::pair<std::string, Tensor>>& inputs, const CompareSettings& s,
                         const ComparisonReport& report, size_t index, const std::string& dir) {
    const ValueComparison& v = report.values.at(index);
    const Node* op = model->find_node(v.node);
    // Every input's value as the against device computes it: observe the op's inputs there.
    std::vector<ValueRef> wanted;
    for (const Output& in : op->inputs())
        if (!in.node->is_constant() && !in.node->is_parameter()) wanted.push_back({in.node->get_friendly_name(), in.index});
    for (size_t o = 0; o < op->output_count(); ++o) wanted.push_back({v.node, o});
    const size_t model_outputs = model->get_results().size();
    const std::vector<Tensor> values = run_on(core, observing(*model, wanted), s.against, s.against_properties, inputs);

    auto tensor_json = [](const Tensor& t, bool is_const) {
        nlohmann::json data = nlohmann::json::array();
        for (size_t i = 0; i < t.get_size(); ++i) {
            const double x = value_at(t, i);
            if (std::isnan(x)) data.push_back("nan");
            else if (std::isinf(x)) data.push_back(x > 0 ? "inf" : "-inf");
            else data.push_back(x);
        }
        nlohmann::json j{{"type", to_string(t.get_element_type())}, {"shape", t.get_shape()}, {"data", data}};
        if (is_const) j["const"] = true;
        return j;
    };
    nlohmann::json c{{"name", op_cases::sanitize(v.node)}, {"op", op->get_type_name()}, {"version", op->version()}};
    c["attrs"] = nlohmann::json::object();
    for (const auto& [key, value] : op->attrs().entries()) c["attrs"][key] = value;
    c["inputs"] = nlohmann::json::array();
    size_t next = model_outputs;
    for (const Output& in : op->inputs()) {
        if (in.node->is_constant()) {
            Tensor t(in.get_element_type(), in.get_shape());
            std::copy_n(static_cast<const uint8_t*>(in.node->constant_data()->data()), t.get_byte_size(),
                        static_cast<uint8_t*>(t.data()));
            c["inputs"].push_back(tensor_json(t, true));
        } else if (in.node->is_parameter()) {
            if (const Tensor* t = input_named(inputs, Model::input_name(*in.node))) c["inputs"].push_back(tensor_json(*t, false));
        } else {
            const Tensor& t = values.at(next++);
            c["inputs"].push_back(tensor_json(t, is_build_time_value(t)));
        }
    }
    c["outputs"] = nlohmann::json::array();
    double largest = 0;
    for (size_t o = 0; o < op->output_count(); ++o) {
        const Tensor& t = values.at(next++);
        for (size_t i = 0; i < t.get_size(); ++i)
            if (std::isfinite(value_at(t, i))) largest = std::max(largest, std::fabs(value_at(t, i)));
        c["outputs"].push_back(tensor_json(t, false));
    }
    // The comparison's tolerance, per element: relative to the output's magnitude, as compare measured it.
    c["rtol"] = s.rtol;
    c["atol"] = s.atol + s.rtol * largest;
    fs::create_directories(dir);
    const fs::path path = fs::path(dir) / (op_cases::sanitize(v.node) + ".json");
    std::ofstream file(path);
    file << nlohmann::json{{"cases", nlohmann::json::array({c})}}.dump(1) << "\n";
    if (!file) throw UsageError("cannot write the op case to '" + path.string() + "'");
    return path.string();
}

}  // namespace mosaic::cli
