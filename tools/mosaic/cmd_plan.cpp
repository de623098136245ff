// mosaic plan -m MODEL -d HETERO:A,B [--config C] [--json]: how an orchestrator would run a model,
// without compiling it (ABI 1.4 query_plan, QueryResult::plan): per device its ops, the bytes it
// would hold (weights, state, activation peak, crossing tensors) against its budget or free
// memory, and the predicted time; per subgraph and per crossing the same. A plan that cannot be
// honoured (the model does not fit the devices given) is the error compile would give. An LLM folder
// (-m LLM_DIR) is planned as LLMPipeline would compile its decoder, at its first step on a prompt of
// --prompt_length tokens, the KV cache at its planned length (mosaic/genai/decoder_plan.hpp).
#include "commands.hpp"
#include "common.hpp"
#include "config_file.hpp"
#include "shapes.hpp"

#include <mosaic/genai/decoder_plan.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>

namespace mosaic::cli {

namespace {

struct PlanOptions {
    ShapeArgs shapes;
    std::string model, device, config;
    size_t prompt_length = 128;  // an LLM folder's first step
    bool json = false;
};

uint64_t bytes_of(const PropertyValue& entry, const char* key) {
    return entry.contains(key) && entry[key].is_number() ? entry[key].get<uint64_t>() : 0;
}

std::string human_bytes(uint64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    size_t unit = 0;
    while (value >= 1024 && unit + 1 < std::size(units)) value /= 1024, ++unit;
    char text[32];
    std::snprintf(text, sizeof(text), unit ? "%.2f %s" : "%.0f %s", value, units[unit]);
    return text;
}

std::string human_us(double us) {
    char text[32];
    if (us >= 1000) std::snprintf(text, sizeof(text), "%.2f ms", us / 1000);
    else std::snprintf(text, sizeof(text), "%.1f us", us);
    return text;
}

// What a device's total is measured against: its PIPELINE_PARALLEL budget, else its free memory.
std::string room_of(const PropertyValue& entry) {
    if (entry.contains("budget_bytes")) return human_bytes(bytes_of(entry, "budget_bytes")) + " budget";
    if (entry.contains("memory_available_bytes")) return human_bytes(bytes_of(entry, "memory_available_bytes")) + " free";
    return "(reports no memory)";
}

void print_text(const PropertyValue& plan, const std::string& device) {
    std::cout << "Model: " << plan.value("model", std::string()) << "\nDevice: " << device
              << "\nPlacement: " << plan.value("placement", std::string()) << "\n\n";
    std::printf("%-12s %6s %12s %12s %12s %12s %12s  %-22s %11s\n", "Device", "Ops", "Weights", "State", "Activations",
                "Crossings", "Total", "Of", "Predicted");
    for (const auto& d : plan.value("memory", PropertyValue::array()))
        std::printf("%-12s %6llu %12s %12s %12s %12s %12s  %-22s %11s\n", d.value("device", std::string()).c_str(),
                    static_cast<unsigned long long>(bytes_of(d, "ops")), human_bytes(bytes_of(d, "weights_bytes")).c_str(),
                    human_bytes(bytes_of(d, "state_bytes")).c_str(), human_bytes(bytes_of(d, "activations_bytes")).c_str(),
                    human_bytes(bytes_of(d, "crossing_bytes")).c_str(), human_bytes(bytes_of(d, "total_bytes")).c_str(),
                    room_of(d).c_str(), human_us(d.value("predicted_us", 0.0)).c_str());
    std::cout << "\nSubgraphs:\n";
    for (const auto& s : plan.value("subgraphs", PropertyValue::array())) {
        const PropertyValue ops = s.value("ops", PropertyValue::array());
        std::cout << "  " << s.value("id", 0) << "  " << s.value("device", std::string()) << "  " << ops.size()
                  << (ops.size() == 1 ? " op" : " ops");
        if (!ops.empty())
            std::cout << " ('" << ops.front().get<std::string>() << "'"
                      << (ops.size() > 1 ? " .. '" + ops.back().get<std::string>() + "'" : std::string()) << ")";
        std::cout << ", predicted " << human_us(s.value("predicted_us", 0.0)) << "\n";
    }
    const PropertyValue transfers = plan.value("transfers", PropertyValue::array());
    std::cout << "\nCrossings: " << transfers.size() << ", " << bytes_of(plan, "transfer_bytes") << " bytes per inference\n";
    for (const auto& t : transfers)
        std::cout << "  " << t.value("tensor", std::string()) << ": subgraph" << t.value("from_subgraph", 0) << " ("
                  << t.value("from_device", std::string()) << ") -> subgraph" << t.value("to_subgraph", 0) << " ("
                  << t.value("to_device", std::string()) << "), " << bytes_of(t, "bytes") << " bytes, predicted "
                  << human_us(t.value("predicted_us", 0.0)) << "\n";
}

void run_plan(const PlanOptions& opts) {
    const AnyMap props = opts.config.empty() ? AnyMap{} : load_config(opts.config, opts.device);
    Core core;
    QueryResult result;
    if (std::filesystem::is_directory(opts.model)) {
        result = genai::plan_decoder(core, opts.model, opts.device, opts.prompt_length, props);
    } else {
        result = query_model(core, load_model(core, opts.model, opts.shapes), opts.device, props);
    }
    if (result.plan.is_null()) {
        const bool plain = opts.device.find(':') == std::string::npos;
        throw std::runtime_error("device '" + opts.device + "' has no plan to show: only an orchestrator splits a model" +
                                 (plain ? " (mosaic plan -d HETERO:" + opts.device + ",CPU)" : std::string()) +
                                 "; `mosaic query -d " + opts.device + "` shows which ops it runs");
    }
    if (result.plan.contains("error")) throw std::runtime_error(result.plan.at("error").get<std::string>());
    if (opts.json) std::cout << result.plan.dump(2) << "\n";
    else print_text(result.plan, opts.device);
}

}  // namespace

void add_plan_command(CLI::App& app) {
    auto opts = std::make_shared<PlanOptions>();
    CLI::App* cmd = app.add_subcommand("plan", "Show how HETERO would split a model (memory and time per device), without compiling it");
    cmd->add_option("-m,--model", opts->model,
                    "Model file (.xml IR or another readable format), or an LLM folder (optimum's export)")
        ->required();
    cmd->add_option("--prompt_length", opts->prompt_length, "An LLM folder's plan is its first step on this many tokens")
        ->check(CLI::PositiveNumber);
    add_shape_options(cmd, opts->shapes);
    cmd->add_option("-d,--device", opts->device, "Orchestrator device string, e.g. HETERO:GPU,CPU")->required();
    cmd->add_option("--config", opts->config,
                    "JSON file of properties, as for run: {\"MODEL_DISTRIBUTION_POLICY\": \"PIPELINE_PARALLEL\", "
                    "\"DEVICE_PROPERTIES\": {\"GPU\": {\"DEVICE_MEMORY_LIMIT\": 1000000}}}");
    cmd->add_flag("--json", opts->json, "Print the plan as JSON (the shape of the compiled model's HETERO_SPLIT)");
    cmd->callback([opts] { run_plan(*opts); });
}

}  // namespace mosaic::cli
