// mosaic query -m MODEL -d DEVICE [--json] [--explain]: which device runs each op, and why the
// others cannot run anywhere. --explain adds, per op, an orchestrator's account of its choice
// (QueryResult::explanation), e.g. which higher-priority devices HETERO passed over and why.
#include "commands.hpp"
#include "common.hpp"
#include "shapes.hpp"

#include <iostream>
#include <memory>
#include <set>
#include <sstream>

namespace mosaic::cli {

namespace {

struct QueryOptions {
    std::vector<std::string> shapes;  // --shape
    std::string model;
    std::string device;
    bool json = false;
    bool explain = false;
};

// Prints the explanation of `name` (if any), one line per line of text, under its op line.
void print_explanation(const QueryResult& result, const std::string& name) {
    const auto found = result.explanation.find(name);
    if (found == result.explanation.end()) return;
    std::istringstream lines(found->second);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty()) std::cout << "    " << line << "\n";
}

void print_text(const Model& model, const QueryResult& result, const std::string& device, bool explain) {
    std::set<std::string> shown;
    size_t supported = 0, total = 0;
    std::cout << "Model: " << model.get_friendly_name() << "\nDevice: " << device << "\n\n";
    // Only an orchestrator explains; say so once rather than leave the reader looking for it.
    const bool explained = explain && !result.explanation.empty();
    if (explain && !explained) std::cout << "(no explanation: " << device << " is not an orchestrator)\n\n";
    for (const Node* node : model.get_ordered_ops()) {
        const auto assigned = result.affinity.find(node->get_friendly_name());
        const auto missing = result.unsupported.find(node->get_friendly_name());
        if (assigned == result.affinity.end() && missing == result.unsupported.end()) continue;
        shown.insert(node->get_friendly_name());
        ++total;
        if (assigned != result.affinity.end()) {
            ++supported;
            std::cout << node->get_friendly_name() << " (" << node->get_type_name() << "): " << assigned->second << "\n";
        } else {
            std::cout << node->get_friendly_name() << " (" << node->get_type_name() << "): UNSUPPORTED\n";
            for (const auto& [dev, why] : missing->second) std::cout << "    " << dev << ": " << why << "\n";
        }
        if (explained) print_explanation(result, node->get_friendly_name());
    }
    // Names the device reported that the model does not have (should not happen; show them anyway).
    for (const auto& [name, dev] : result.affinity)
        if (!shown.count(name)) {
            ++total, ++supported;
            std::cout << name << ": " << dev << "\n";
            if (explained) print_explanation(result, name);
        }
    for (const auto& [name, reasons] : result.unsupported)
        if (!shown.count(name)) {
            ++total;
            std::cout << name << ": UNSUPPORTED\n";
            for (const auto& [dev, why] : reasons) std::cout << "    " << dev << ": " << why << "\n";
            if (explained) print_explanation(result, name);
        }
    std::cout << "\n" << supported << " of " << total << " ops supported";
    if (result.unsupported.empty())
        std::cout << "\n";
    else
        std::cout << "; " << result.unsupported.size() << " unsupported\n";
}

void print_json(const Model& model, const QueryResult& result, const std::string& device, bool explain) {
    PropertyValue out = {{"model", model.get_friendly_name()},
                         {"device", device},
                         {"affinity", PropertyValue::object()},
                         {"unsupported", PropertyValue::object()}};
    for (const auto& [name, dev] : result.affinity) out["affinity"][name] = dev;
    for (const auto& [name, reasons] : result.unsupported) {
        PropertyValue r = PropertyValue::object();
        for (const auto& [dev, why] : reasons) r[dev] = why;
        out["unsupported"][name] = r;
    }
    if (explain) {
        out["explanation"] = PropertyValue::object();  // stays empty for a device that is not an orchestrator
        for (const auto& [name, text] : result.explanation) out["explanation"][name] = text;
    }
    std::cout << out.dump(2) << "\n";
}

void run_query(const QueryOptions& opts) {
    Core core;
    const std::shared_ptr<Model> model = load_model(core, opts.model, opts.shapes);
    const QueryResult result = query_model(core, model, opts.device);
    if (opts.json)
        print_json(*model, result, opts.device, opts.explain);
    else
        print_text(*model, result, opts.device, opts.explain);
}

}  // namespace

void add_query_command(CLI::App& app) {
    auto opts = std::make_shared<QueryOptions>();
    CLI::App* cmd = app.add_subcommand("query", "Show which device runs each op of a model");
    cmd->add_option("-m,--model", opts->model, "Model file (.xml IR or another readable format)")->required();
    add_shape_option(cmd, opts->shapes);
    cmd->add_option("-d,--device", opts->device, "Device string, e.g. ACCEL or HETERO:ACCEL,REFERENCE")->required();
    cmd->add_flag("--json", opts->json, "Print JSON: {\"affinity\": {op: device}, \"unsupported\": {op: {device: reason}}}");
    cmd->add_flag("--explain", opts->explain,
                  "Also show why each op went to its device (orchestrators such as HETERO:A,B explain; with --json, "
                  "an \"explanation\": {op: text} object)");
    cmd->callback([opts] { run_query(*opts); });
}

}  // namespace mosaic::cli
