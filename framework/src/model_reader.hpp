// Picks the reader for a model file.
#pragma once

#include <mosaic/model.hpp>

#include <memory>
#include <string>

namespace mosaic {

// Reads an OpenVINO IR .xml (weights from `weights_path` or the .bin beside it) or an ONNX model,
// told apart by content. Throws ModelError naming the file when the format is not recognised or the
// model is invalid.
std::shared_ptr<Model> read_model_file(const std::string& path, const std::string& weights_path);

}  // namespace mosaic
