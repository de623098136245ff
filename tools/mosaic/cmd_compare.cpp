// mosaic compare -m MODEL -d DEVICE [--against REFERENCE] [-i [NAME=]FILE ...] [--rtol R --atol A]
//                [--json] [--save-case DIR] [--config FILE.json]:
// every value the model computes on DEVICE against the same on the against device, and the first
// op that goes wrong (compare.hpp). Exits 1 when a value or an output exceeds the tolerance.
#include "commands.hpp"
#include "common.hpp"
#include "compare.hpp"
#include "config_file.hpp"
#include "inputs.hpp"
#include "shapes.hpp"

#include <iostream>
#include <memory>

namespace mosaic::cli {

namespace {

struct CompareOptions {
    ShapeArgs shapes;
    std::string model;
    std::string config;
    std::vector<std::string> inputs;
    bool json = false;
    std::string save_case;
    CompareSettings settings;
};

void run_compare(CompareOptions opts) {
    for (const auto& spec : opts.inputs) parse_input_spec(spec);
    if (!opts.config.empty()) {
        opts.settings.device_properties = load_config(opts.config, opts.settings.device);
        opts.settings.against_properties = load_config(opts.config, opts.settings.against);
    }
    Core core;
    std::vector<ResolvedShape> resolved;
    const std::shared_ptr<Model> model = load_model_for_inputs(core, opts.model, opts.shapes, opts.inputs, &resolved);
    // The inputs, from -i or deterministic, as the model takes them (its ports, from a compile on
    // the against device).
    std::vector<std::pair<std::string, Tensor>> inputs;
    for (const InputData& in : prepare_inputs(compile_model(core, model, opts.settings.against, opts.settings.against_properties),
                                             opts.inputs))
        inputs.emplace_back(in.name, in.tensor);
    const ComparisonReport report =
        with_default_shape_note(resolved, [&] { return compare_devices(core, model, inputs, opts.settings); });
    if (opts.json) std::cout << to_json(report).dump(1) << "\n";
    else print_report(std::cout, report, opts.settings);
    if (report.first_divergence < 0) return;
    if (!opts.save_case.empty()) {
        std::ostream& note = opts.json ? std::cerr : std::cout;
        const size_t index = static_cast<size_t>(report.first_divergence);
        // A fusion's error: the op alone agrees, so the case holds the chain the device fuses.
        const std::string chain = report.found_by_bisection
                                      ? save_chain_case(core, model, inputs, opts.settings, report, index, opts.save_case)
                                      : "";
        if (!chain.empty()) {
            note << "Fused chain written to " << chain << " (mosaic conformance -d " << opts.settings.device << " "
                 << chain << "; mosaic verify-plugin " << opts.settings.device << " --model " << chain << "/model.xml)\n";
        } else {
            if (report.found_by_bisection)
                note << "No chain of up to 4 ops around the op goes wrong alone; writing the op alone\n";
            const std::string path = save_op_case(core, model, inputs, opts.settings, report, index, opts.save_case);
            note << "Op case written to " << path << " (mosaic verify-plugin " << opts.settings.device << " --op-cases "
                 << opts.save_case << ")\n";
        }
    }
    throw std::runtime_error(report.verdict);
}

}  // namespace

void add_compare_command(CLI::App& app) {
    auto opts = std::make_shared<CompareOptions>();
    CLI::App* cmd = app.add_subcommand(
        "compare", "Run a model on a device and on REFERENCE with every value observed; name the first op that differs");
    cmd->add_option("-m,--model", opts->model, "Model file (.xml IR or ONNX)")->required();
    add_shape_options(cmd, opts->shapes);
    cmd->add_option("-d,--device", opts->settings.device, "Device string to check, e.g. GPU or HETERO:GPU,CPU")->required();
    cmd->add_option("--against", opts->settings.against, "Device whose values count as right")->capture_default_str();
    cmd->add_option("-i,--input", opts->inputs, "[NAME=]FILE for a model input (.npy or images); others get deterministic data")
        ->take_all();
    cmd->add_option("--rtol", opts->settings.rtol, "A value differs when max |error| > atol + rtol * max |value|")
        ->capture_default_str();
    cmd->add_option("--atol", opts->settings.atol, "See --rtol")->capture_default_str();
    cmd->add_option("--config", opts->config, "JSON file of compile properties: {\"KEY\": value} or {\"DEVICE\": {...}}");
    cmd->add_flag("--json", opts->json, "Print the comparison as JSON");
    cmd->add_option("--save-case", opts->save_case,
                    "Write the first op that differs, with its inputs and the against device's outputs, as an op case "
                    "in DIR (verify-plugin --op-cases DIR runs it); when the error is in a fusion, the fused chain as "
                    "an IR test folder DIR/<op>_chain (mosaic conformance and verify-plugin --model run it)");
    cmd->callback([opts] { run_compare(*opts); });
}

}  // namespace mosaic::cli
