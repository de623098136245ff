// Reading ONNX models. Core::read_model() picks this reader by content; call read_onnx() directly
// to give shapes for dynamic dimensions or to bind inputs to values at read time.
//
// An ONNX graph is translated op by op into Mosaic's op set (OpenVINO names and semantics),
// decomposing an ONNX op into several Mosaic ops where OpenVINO's own frontend does. Weights are
// copied once out of the protobuf (or the external-data file) into Constant buffers.
#pragma once

#include <mosaic/export.hpp>

#include <mosaic/model.hpp>
#include <mosaic/tensor.hpp>

#include <map>
#include <memory>
#include <string>

namespace mosaic::onnx {

// An ONNX node that Mosaic cannot translate (an unknown op, an op from an unsupported domain, an
// attribute value or input form it does not handle). The message names the model, the node, the
// op type and the opset. Tools report such models as "unsupported" rather than failed.
class MOSAIC_API UnsupportedError : public ModelError {
public:
    using ModelError::ModelError;
};

struct ReadOptions {
    // Shapes for graph inputs, by ONNX input name, replacing the declared ones. A dynamic dimension
    // (a `dim_param` such as "batch", or none at all) that is given no shape here stays dynamic (-1)
    // until Model::reshape() resolves it.
    std::map<std::string, Shape> input_shapes;
    // Graph inputs to replace by Constants holding these values: the input disappears from the
    // model's inputs and value-dependent shapes (Reshape targets, Resize scales, ...) resolve.
    std::map<std::string, Tensor> input_values;
    // Gives every dynamic dimension left after `input_shapes` the size 1 (what `mosaic` does when no
    // --shape is given). The inputs so changed are listed in the model's rt_info under
    // "onnx.dynamic_inputs_set_to_one", e.g. "input_ids [?,?]".
    bool dynamic_dims_to_one = false;
};

// Reads an ONNX model file (external-data files are looked up beside it). Throws ModelError
// (UnsupportedError for untranslatable nodes) naming the file and the node.
MOSAIC_API std::shared_ptr<Model> read_onnx(const std::string& path, const ReadOptions& options = {});

// Reads a serialized onnx.TensorProto, as the backend tests' input_N.pb / output_N.pb files hold.
// `name` receives the tensor's name (may be empty). Throws ModelError naming the file.
MOSAIC_API Tensor read_tensor_file(const std::string& path, std::string* name = nullptr);

// Writes `tensor` as a serialized onnx.TensorProto named `name` (raw data), the backend tests'
// format that read_tensor_file reads. Throws std::runtime_error naming the file.
MOSAIC_API void write_tensor_file(const std::string& path, const Tensor& tensor, const std::string& name = "");

// Whether the file is to be read as ONNX: its first bytes look like a serialized onnx.ModelProto
// (or it ends in .onnx) and it is not XML.
MOSAIC_API bool is_onnx_file(const std::string& path);

}  // namespace mosaic::onnx
