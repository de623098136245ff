#include "readers/model_reader.hpp"

#include "readers/ir/ir.hpp"

#include <mosaic/onnx.hpp>
#include <mosaic/serialize.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace mosaic {

bool starts_like_xml(const std::string& head) {
    const size_t start = head.find_first_not_of(kLeadingBlanks);
    return start != std::string::npos && head[start] == '<';
}

std::shared_ptr<Model> read_model_file(const std::string& path, const std::string& weights_path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ModelError("model file '" + path + "' cannot be opened: " + std::strerror(errno));
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    // The format is told by content: IR is XML (the IR reader names what else is wrong with it).
    if (starts_like_xml(head)) return ir::read_ir(path, weights_path);
    if (onnx::is_onnx_file(path)) return onnx::read_onnx(path);
    throw ModelError("model file '" + path +
                     "' is not in a format Mosaic reads (expected OpenVINO IR, an .xml whose root element is <net>, "
                     "or an ONNX model)");
}

void serialize(const Model& model, const std::string& xml_path, const std::string& bin_path) {
    ir::write_ir(model, xml_path, bin_path);
}

}  // namespace mosaic
