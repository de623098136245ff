// The subcommands of `mosaic`. Each add_*_command() registers its subcommand, options and the
// callback that runs it; errors are thrown and reported by main().
#pragma once

#include <CLI/CLI.hpp>

namespace mosaic::cli {

void add_devices_command(CLI::App& app);
void add_query_command(CLI::App& app);
void add_plan_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_benchmark_command(CLI::App& app);
void add_convert_command(CLI::App& app);
void add_visualize_command(CLI::App& app);
void add_conformance_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_verify_plugin_command(CLI::App& app);
void add_generate_command(CLI::App& app);

}  // namespace mosaic::cli
