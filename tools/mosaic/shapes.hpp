// --shape arguments: "name[1,3,224,224]", given several times or joined by commas
// ("a[1,128],b[1,128]").
#pragma once

#include <mosaic/mosaic.hpp>

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

namespace mosaic::cli {

// Input name -> shape. Throws UsageError for a malformed argument.
std::map<std::string, Shape> parse_shape_args(const std::vector<std::string>& args);

// Adds the --shape option to a command.
void add_shape_option(CLI::App* cmd, std::vector<std::string>& target);

}  // namespace mosaic::cli
