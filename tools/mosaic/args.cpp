#include "args.hpp"

namespace mosaic::cli {

namespace {

struct Alias {
    const char* single_dash;
    const char* replacement;
};

constexpr Alias kAliases[] = {
    {"-pc", "--pc"},
    {"-pcsort", "--pcsort"},
    {"-niter", "--niter"},
    {"-nireq", "--nireq"},
    {"-nstreams", "--nstreams"},
    {"-nthreads", "--nthreads"},
    {"-api", "--api"},
    {"-hint", "--hint"},
    {"-shape", "--shape"},
    {"-data_shape", "--data_shape"},
    {"-infer_precision", "--infer_precision"},
    {"-report_type", "--report_type"},
    {"-report_folder", "--report_folder"},
    {"-json_stats", "--json_stats"},
    {"-load_config", "--config"},
};

}  // namespace

std::vector<std::string> normalize_args(int argc, const char* const* argv) {
    std::vector<std::string> out;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        const size_t eq = arg.find('=');
        const std::string name = arg.substr(0, eq);
        for (const auto& a : kAliases)
            if (name == a.single_dash) {
                arg = a.replacement + (eq == std::string::npos ? std::string() : arg.substr(eq));
                break;
            }
        out.push_back(std::move(arg));
    }
    return out;
}

}  // namespace mosaic::cli
