// mosaic visualize -m MODEL -d HETERO:A,B -o DIR [--config FILE.json]: how HETERO split a model, as
// pictures. Compiles the model, takes the Graphviz texts HETERO reports (HETERO_AFFINITY_DOT: each
// op coloured by device; HETERO_SUBGRAPHS_DOT: the subgraphs and the tensors that cross between
// them), writes them as DIR/hetero_affinity_<model>.dot and DIR/hetero_subgraphs_<model>.dot (the
// names HETERO_VISUALIZE dumps use) and renders each to .svg with Graphviz.
#include "commands.hpp"
#include "common.hpp"
#include "shapes.hpp"
#include "config_file.hpp"
#include "graphviz.hpp"
#include "split_summary.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

namespace mosaic::cli {

namespace {

constexpr const char* kNeedsHetero = "visualize needs a HETERO device string, e.g. HETERO:ACCEL,REFERENCE";

struct VisualizeOptions {
    std::vector<std::string> shapes;  // --shape
    std::string model;
    std::string device;
    std::string output_dir;
    std::string config;
};

// The model name as it may appear in a file name: a name like "a/b" must not reach another folder.
std::string file_safe(const std::string& name) {
    std::string out;
    for (char c : name) {
        const bool safe = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
        out += safe ? c : '_';
    }
    return out.empty() || out == "." || out == ".." ? "model" : out;
}

bool names_hetero(const std::string& device) {
    return device.rfind("HETERO", 0) == 0 && (device.size() == 6 || device[6] == ':' || device[6] == '.');
}

CompiledModel compile_for_visualize(Core& core, const std::shared_ptr<const Model>& model,
                                    const VisualizeOptions& opts, const AnyMap& props) {
    try {
        return compile_model(core, model, opts.device, props);
    } catch (const std::exception& e) {
        // A plain device that cannot run the whole model fails here, before its missing property
        // could tell; the real problem is the device string.
        if (names_hetero(opts.device)) throw;
        throw UsageError(std::string(kNeedsHetero) + "; compiling on '" + opts.device + "' failed: " + e.what());
    }
}

std::string dot_text(const CompiledModel& compiled, const std::string& key, const std::string& device) {
    PropertyValue v;
    try {
        v = compiled.get_property(key);
    } catch (const std::exception&) {
        throw UsageError(std::string(kNeedsHetero) + "; '" + device + "' is not HETERO (its compiled model has no " +
                         key + " property)");
    }
    if (!v.is_string() || v.get<std::string>().empty())
        throw std::runtime_error("device '" + device + "' reported " + key + " as " +
                                 (v.is_string() ? std::string("an empty string") : v.dump()) +
                                 ", not Graphviz text; this is a bug of the HETERO plugin");
    return v.get<std::string>();
}

void make_folder(const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw UsageError("cannot create output folder '" + dir + "': " + ec.message());
    if (!std::filesystem::is_directory(dir, ec)) throw UsageError("output path '" + dir + "' is not a folder");
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw UsageError("cannot write '" + path + "'; check that its folder is writable");
    out << text;
    out.close();
    if (!out) throw UsageError("error writing '" + path + "' (disk full?)");
}

void run_visualize(const VisualizeOptions& opts) {
    const AnyMap props = opts.config.empty() ? AnyMap{} : load_config(opts.config, opts.device);
    Core core;
    const std::shared_ptr<Model> model = load_model(core, opts.model, opts.shapes);
    std::cout << "Model: " << opts.model << " (" << model->get_friendly_name() << ")\n";
    std::cout << "Device: " << opts.device << "\n";

    const CompiledModel compiled = compile_for_visualize(core, model, opts, props);
    // Both texts before any file, so a device that is not HETERO leaves nothing behind.
    const std::vector<std::pair<std::string, std::string>> graphs = {
        {"hetero_affinity_", dot_text(compiled, "HETERO_AFFINITY_DOT", opts.device)},
        {"hetero_subgraphs_", dot_text(compiled, "HETERO_SUBGRAPHS_DOT", opts.device)},
    };
    if (const std::string split = split_summary(compiled); !split.empty()) std::cout << split << "\n";

    make_folder(opts.output_dir);
    const std::string stem = file_safe(model->get_friendly_name());
    for (const auto& [prefix, text] : graphs) {
        const std::string base = (std::filesystem::path(opts.output_dir) / (prefix + stem)).string();
        write_file(base + ".dot", text);
        std::cout << "Wrote " << base << ".dot\n";
        render_svg(base + ".dot", base + ".svg");
        std::cout << "Wrote " << base << ".svg\n";
    }
}

}  // namespace

void add_visualize_command(CLI::App& app) {
    auto opts = std::make_shared<VisualizeOptions>();
    CLI::App* cmd = app.add_subcommand(
        "visualize", "Draw how HETERO splits a model: op affinities and subgraphs as Graphviz .dot and .svg");
    cmd->add_option("-m,--model", opts->model, "Model file (.xml IR or another readable format)")->required();
    add_shape_option(cmd, opts->shapes);
    cmd->add_option("-d,--device", opts->device, "HETERO device string, e.g. HETERO:ACCEL,REFERENCE")->required();
    cmd->add_option("-o,--output-dir", opts->output_dir,
                    "Folder for hetero_affinity_<model>.dot/.svg and hetero_subgraphs_<model>.dot/.svg (created)")
        ->required();
    cmd->add_option("--config", opts->config,
                    "JSON file of compile properties: {\"KEY\": value} or {\"DEVICE\": {\"KEY\": value}}");
    cmd->callback([opts] { run_visualize(*opts); });
}

}  // namespace mosaic::cli
