// mosaic: the command-line front end of the Mosaic runtime.
//   mosaic devices | query | run | benchmark | convert | visualize | conformance | verify-plugin | generate   (mosaic <command> --help for each)
// Every failure ends as one line "mosaic: error: <what went wrong>" on stderr and exit code 1.
#include "args.hpp"
#include "commands.hpp"

#include <mosaic/sdk/status.hpp>

#include <algorithm>
#include <csignal>
#include <iostream>

#ifndef MOSAIC_VERSION
#define MOSAIC_VERSION "unknown"
#endif

namespace {

int report_error(const std::string& message) {
    std::cout.flush();
    std::cerr << "mosaic: error: " << message << std::endl;
    return 1;
}

// "mosaic run --help" when a subcommand was named, else "mosaic --help".
std::string help_hint(const CLI::App& app) {
    const auto selected = app.get_subcommands();
    return "see 'mosaic" + (selected.empty() ? std::string() : " " + selected.front()->get_name()) + " --help'";
}

}  // namespace

int main(int argc, char** argv) {
    // Writing to a closed pipe (mosaic ... | head) should end quietly, not by a signal.
    std::signal(SIGPIPE, SIG_IGN);

    CLI::App app{"Mosaic: run neural-network models on one or several devices", "mosaic"};
    app.set_version_flag("--version", MOSAIC_VERSION);
    app.require_subcommand(1);
    app.fallthrough(false);
    mosaic::cli::add_devices_command(app);
    mosaic::cli::add_query_command(app);
    mosaic::cli::add_plan_command(app);
    mosaic::cli::add_run_command(app);
    mosaic::cli::add_benchmark_command(app);
    mosaic::cli::add_convert_command(app);
    mosaic::cli::add_visualize_command(app);
    mosaic::cli::add_conformance_command(app);
    mosaic::cli::add_compare_command(app);
    mosaic::cli::add_verify_plugin_command(app);
    mosaic::cli::add_generate_command(app);

    std::vector<std::string> args = mosaic::cli::normalize_args(argc, argv);
    // CLI11 would only say "A subcommand is required" for a mistyped command name.
    if (!args.empty() && !args.front().empty() && args.front()[0] != '-') {
        const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
        bool known = false;
        std::string commands;
        for (const CLI::App* sub : subs) {
            known = known || sub->get_name() == args.front();
            commands += (commands.empty() ? "" : ", ") + sub->get_name();
        }
        if (!known) return report_error("unknown command '" + args.front() + "'; the commands are: " + commands);
    }
    std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last-first
    try {
        app.parse(args);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help, --version
        std::string what = e.what();
        if (what.empty()) what = e.get_name();
        return report_error(what + " (" + help_hint(app) + ")");
    } catch (const std::exception& e) {
        return report_error(mosaic::sdk::describe(e));
    } catch (...) {
        return report_error("unexpected failure (an exception that is not a std::exception)");
    }
    std::cout.flush();
    return 0;
}
