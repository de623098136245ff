// mosaic query -m MODEL -d DEVICE [--json]: which device runs each op, and why the others cannot
// run anywhere.
#include "commands.hpp"
#include "common.hpp"

#include <iostream>
#include <memory>
#include <set>

namespace mosaic::cli {

namespace {

struct QueryOptions {
    std::string model;
    std::string device;
    bool json = false;
};

void print_text(const Model& model, const QueryResult& result, const std::string& device) {
    std::set<std::string> shown;
    size_t supported = 0, total = 0;
    std::cout << "Model: " << model.name() << "\nDevice: " << device << "\n\n";
    for (const Node* node : model.topological_order()) {
        const auto assigned = result.affinity.find(node->name());
        const auto missing = result.unsupported.find(node->name());
        if (assigned == result.affinity.end() && missing == result.unsupported.end()) continue;
        shown.insert(node->name());
        ++total;
        if (assigned != result.affinity.end()) {
            ++supported;
            std::cout << node->name() << " (" << node->type() << "): " << assigned->second << "\n";
        } else {
            std::cout << node->name() << " (" << node->type() << "): UNSUPPORTED\n";
            for (const auto& [dev, why] : missing->second) std::cout << "    " << dev << ": " << why << "\n";
        }
    }
    // Names the device reported that the model does not have (should not happen; show them anyway).
    for (const auto& [name, dev] : result.affinity)
        if (!shown.count(name)) {
            ++total, ++supported;
            std::cout << name << ": " << dev << "\n";
        }
    for (const auto& [name, reasons] : result.unsupported)
        if (!shown.count(name)) {
            ++total;
            std::cout << name << ": UNSUPPORTED\n";
            for (const auto& [dev, why] : reasons) std::cout << "    " << dev << ": " << why << "\n";
        }
    std::cout << "\n" << supported << " of " << total << " ops supported";
    if (result.unsupported.empty())
        std::cout << "\n";
    else
        std::cout << "; " << result.unsupported.size() << " unsupported\n";
}

void print_json(const Model& model, const QueryResult& result, const std::string& device) {
    PropertyValue out = {{"model", model.name()},
                         {"device", device},
                         {"affinity", PropertyValue::object()},
                         {"unsupported", PropertyValue::object()}};
    for (const auto& [name, dev] : result.affinity) out["affinity"][name] = dev;
    for (const auto& [name, reasons] : result.unsupported) {
        PropertyValue r = PropertyValue::object();
        for (const auto& [dev, why] : reasons) r[dev] = why;
        out["unsupported"][name] = r;
    }
    std::cout << out.dump(2) << "\n";
}

void run_query(const QueryOptions& opts) {
    Core core;
    const std::shared_ptr<Model> model = load_model(core, opts.model);
    const QueryResult result = query_model(core, model, opts.device);
    if (opts.json)
        print_json(*model, result, opts.device);
    else
        print_text(*model, result, opts.device);
}

}  // namespace

void add_query_command(CLI::App& app) {
    auto opts = std::make_shared<QueryOptions>();
    CLI::App* cmd = app.add_subcommand("query", "Show which device runs each op of a model");
    cmd->add_option("-m,--model", opts->model, "Model file (.xml IR or another readable format)")->required();
    cmd->add_option("-d,--device", opts->device, "Device string, e.g. ACCEL or HETERO:ACCEL,REFERENCE")->required();
    cmd->add_flag("--json", opts->json, "Print JSON: {\"affinity\": {op: device}, \"unsupported\": {op: {device: reason}}}");
    cmd->callback([opts] { run_query(*opts); });
}

}  // namespace mosaic::cli
