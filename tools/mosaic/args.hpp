// OpenVINO tools spell some long options with one dash (-pc, -niter, -shape, -report_type,
// -load_config...: the list is in args.cpp). CLI11 reads "-niter" as the short flags -n -i -t...,
// so those spellings are rewritten to the double-dash options before parsing. Only these exact
// names are touched.
#pragma once

#include <string>
#include <vector>

namespace mosaic::cli {

std::vector<std::string> normalize_args(int argc, const char* const* argv);

}  // namespace mosaic::cli
