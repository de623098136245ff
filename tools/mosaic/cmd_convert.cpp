// mosaic convert -m IN -o OUT.xml: reads any model Mosaic can read and writes it as IR v11
// (OUT.xml and OUT.bin). Dynamic dimensions stay dynamic unless --shape fixes them.
#include "commands.hpp"
#include "common.hpp"
#include "shapes.hpp"

#include <filesystem>
#include <iostream>
#include <memory>

namespace mosaic::cli {

namespace {

struct ConvertOptions {
    ShapeArgs shapes;  // -shape
    std::string model;
    std::string output;
};

void run_convert(const ConvertOptions& opts) {
    namespace fs = std::filesystem;
    const fs::path out(opts.output);
    if (out.extension() != ".xml") throw UsageError("output '" + opts.output + "' must end in .xml (IR v11)");
    std::error_code ec;
    if (fs::exists(opts.model, ec) && fs::exists(out, ec) && fs::equivalent(opts.model, out, ec))
        throw UsageError("output '" + opts.output + "' is the input model; choose another path");

    Core core;
    const std::shared_ptr<Model> model = load_model(core, opts.model, opts.shapes);
    if (out.has_parent_path()) {
        fs::create_directories(out.parent_path(), ec);
        if (!fs::is_directory(out.parent_path()))
            throw UsageError("cannot create directory '" + out.parent_path().string() + "'" +
                             (ec ? ": " + ec.message() : ""));
    }
    const std::string bin = fs::path(out).replace_extension(".bin").string();
    serialize(*model, out.string(), bin);
    std::cout << "Converted " << opts.model << " (" << model->get_friendly_name() << ", " << model->get_ops().size()
              << " nodes) to IR v11: " << out.string() << " and " << bin << "\n";
}

}  // namespace

void add_convert_command(CLI::App& app) {
    auto opts = std::make_shared<ConvertOptions>();
    CLI::App* cmd = app.add_subcommand("convert", "Convert a model to OpenVINO IR v11 (.xml + .bin)");
    cmd->add_option("-m,--model", opts->model, "Input model (.xml IR or another readable format)")->required();
    opts->shapes.keep_dynamic = true;  // as ovc: the IR keeps what --shape leaves dynamic
    add_shape_options(cmd, opts->shapes);
    cmd->add_option("-o,--output", opts->output, "Output .xml path; the weights go to the same path with .bin")
        ->required();
    cmd->callback([opts] { run_convert(*opts); });
}

}  // namespace mosaic::cli
