// Writing models: OpenVINO IR v11 (.xml + .bin).
#pragma once

#include <mosaic/export.hpp>

#include <mosaic/model.hpp>

#include <string>

namespace mosaic {

// Writes `model` as IR v11; `bin_path` empty: the .xml path with .bin. Throws std::runtime_error
// naming the file when it cannot be written.
MOSAIC_API void serialize(const Model& model, const std::string& xml_path, const std::string& bin_path = "");

}  // namespace mosaic
