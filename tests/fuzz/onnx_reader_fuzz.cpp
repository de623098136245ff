// The ONNX reader on the bytes of a model file: protobuf parsing, every op translator, subgraphs,
// and the shape inference and constant folding they run while the model is built.
#include "fuzz_scratch.hpp"
#include "fuzz_targets.hpp"

#include <mosaic/onnx.hpp>

#include <stdexcept>

namespace mosaic::fuzz {

void onnx_reader(const uint8_t* data, size_t size) {
    onnx::ReadOptions options;
    options.dynamic_dims_to_one = true;  // static shapes let shape inference and folding go further
    try {
        onnx::read_onnx(write_scratch("onnx/model.onnx", {reinterpret_cast<const char*>(data), size}), options);
    } catch (const std::runtime_error&) {
        // refused (ModelError, UnsupportedError), naming the node
    }
}

}  // namespace mosaic::fuzz
