// mosaic run -m MODEL -d DEVICE [-pc] [--config FILE.json] [-i [NAME=]FILE ...] [-o DIR]:
// one inference, its outputs summarised, optionally saved as .npy and profiled. -i takes .npy
// files and JPEG/PNG images.
#include "commands.hpp"
#include "common.hpp"
#include "shapes.hpp"
#include "config_file.hpp"
#include "inputs.hpp"
#include "outputs.hpp"
#include "profiling.hpp"
#include "split_summary.hpp"
#include "summary.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

namespace mosaic::cli {

namespace {

struct RunOptions {
    ShapeArgs shapes;  // -shape
    std::string model;
    std::string device;
    bool perf_counters = false;
    std::string config;
    std::vector<std::string> inputs;
    std::string output_dir;
    size_t values = 10;
};

double elapsed_ms(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

std::string ms(double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.2f ms", v);
    return buf;
}

void run_run(const RunOptions& opts) {
    // Check what can be checked before the (possibly slow) compile.
    for (const auto& spec : opts.inputs) parse_input_spec(spec);
    AnyMap props = opts.config.empty() ? AnyMap{} : load_config(opts.config, opts.device);
    if (opts.perf_counters) props[properties::enable_profiling.name] = true;

    Core core;
    // The model runs at the shapes of the data it is given; --shape picks one where none is.
    std::vector<ResolvedShape> resolved;
    const std::shared_ptr<Model> model = load_model_for_inputs(core, opts.model, opts.shapes, opts.inputs, &resolved);
    std::cout << "Model: " << opts.model << " (" << model->get_friendly_name() << ")\n";
    std::cout << "Device: " << opts.device << "\n";

    auto t0 = std::chrono::steady_clock::now();
    CompiledModel compiled = with_default_shape_note(resolved, [&] { return compile_model(core, model, opts.device, props); });
    std::cout << "Compiled in " << ms(elapsed_ms(t0)) << "\n";
    if (const std::string split = split_summary(compiled); !split.empty()) std::cout << split << "\n";

    InferRequest request = compiled.create_infer_request();
    const std::vector<InputData> inputs = prepare_inputs(compiled, opts.inputs);
    set_inputs(request, inputs);
    print_inputs(std::cout, inputs);

    t0 = std::chrono::steady_clock::now();
    with_default_shape_note(resolved, [&] { request.infer(); });
    std::cout << "Inference took " << ms(elapsed_ms(t0)) << "\n\n";

    for (const auto& port : compiled.outputs())
        print_tensor_summary(std::cout, port.name, request.get_tensor(port.name), opts.values);

    if (!opts.output_dir.empty()) {
        std::cout << "\n";
        write_outputs(opts.output_dir, compiled, request, std::cout);
    }
    if (opts.perf_counters) {
        std::cout << "\nPerformance counters:\n";
        print_profiling(std::cout, request.get_profiling_info());
    }
}

}  // namespace

void add_run_command(CLI::App& app) {
    auto opts = std::make_shared<RunOptions>();
    CLI::App* cmd = app.add_subcommand("run", "Compile a model, run one inference and show its outputs");
    cmd->add_option("-m,--model", opts->model, "Model file (.xml IR or another readable format)")->required();
    add_shape_options(cmd, opts->shapes);
    cmd->add_option("-d,--device", opts->device, "Device string, e.g. REFERENCE or HETERO:ACCEL,REFERENCE")->required();
    cmd->add_flag("--pc", opts->perf_counters, "Turn on PERF_COUNT and print per-layer times (also -pc)");
    cmd->add_option("--config", opts->config,
                    "JSON file of compile properties: {\"KEY\": value} or {\"DEVICE\": {\"KEY\": value}}");
    cmd->add_option("-i,--input", opts->inputs,
                    "[NAME=]FILE for a model input: a .npy file, or JPEG/PNG images (BGR, one per batch item or "
                    "one for all; repeatable); other inputs get deterministic data")
        ->take_all();
    cmd->add_option("-o,--output-dir", opts->output_dir, "Write each output as DIR/<name>.npy");
    cmd->add_option("--values", opts->values, "How many leading values of each output to print")
        ->capture_default_str();
    cmd->callback([opts] { run_run(*opts); });
}

}  // namespace mosaic::cli
