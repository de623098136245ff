// OpenVINO IR (.xml topology + .bin weights): reading IR v10 and v11, writing IR v11.
//
// Reading keeps everything a round trip needs: layer ids, friendly names, <data> attributes in
// file order, tensor names, per-layer and model-level rt_info. Constants are views into the .bin,
// which is memory-mapped and kept alive by the Constants' Buffers; weights are never copied.
// The model returned is validated, and every declared output port is checked against the inferred
// element type and shape.
//
// Layer ids and node ids: IR layer ids start at 0, and Model::add_node() treats id 0 as "pick one",
// so node id = layer id + 1 on reading and layer id = node id - 1 on writing. A round trip
// reproduces both numberings exactly. Errors name the layer by its IR id.
//
// Every error is a ModelError naming the file, the layer (name, id, type) where there is one, what
// is wrong and what to do about it.
#pragma once

#include <mosaic/model.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace mosaic::ir {

// Reads an IR v10 or v11 model. `bin_path` empty means the .xml path with the extension .bin; the
// .bin is only opened when the model has a Constant.
std::shared_ptr<Model> read_ir(const std::string& xml_path, const std::string& bin_path = "");

// Writes `model` (validated) as IR v11. Constants are packed into the new .bin, each aligned, with
// identical constants stored once. Both files are written to temporary names and renamed into
// place, so writing over the files a model was read from is safe (its weights stay mapped).
void write_ir(const Model& model, const std::string& xml_path, const std::string& bin_path = "");

// The .bin path that goes with an .xml path: the same stem with the extension .bin.
std::string default_bin_path(const std::string& xml_path);

// The mapping between IR layer ids and node ids (see above).
inline uint64_t node_id_of_layer(uint64_t layer_id) { return layer_id + 1; }
inline uint64_t layer_id_of_node(uint64_t node_id) { return node_id - 1; }

}  // namespace mosaic::ir
