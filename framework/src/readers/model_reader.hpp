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

// What may come before a text file's first character: blanks and a UTF-8 byte-order mark.
inline constexpr const char* kLeadingBlanks = " \t\r\n\xEF\xBB\xBF";
// Whether a file's first bytes are XML's: '<' after kLeadingBlanks. A '<' further on
// may be any byte of a binary model (a length of 60, a character of a name) and says nothing.
bool starts_like_xml(const std::string& head);

}  // namespace mosaic
