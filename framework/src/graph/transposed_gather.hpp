// Rows gathered from a transposed constant matrix, read as columns of the constant instead.
//
// ONNX Runtime GenAI's model builder ties an LLM's embedding to its head by writing the embedding
// as Gather(Transpose(head weight [hidden, vocabulary]), input_ids). Devices fold a Transpose of a
// constant at compile time into a copy of their own, one per compiled model: 544 MB for a
// Qwen2.5-0.5B-shaped vocabulary, once per input shape a generation compiles (16 cached shapes held
// 8.7 GB of copies, a 10.9 GB peak in mosaic generate). Gathering the constant's columns and moving the gathered axis last gives the same values
// and copies only what is read:
//
//   Gather(Transpose(C [R, V], perm [1, 0]), idx, axis 0, batch_dims 0)
//     -> Transpose(Gather(C, idx, axis 1), perm [1, ..., k, 0])      (k: idx's rank)
//
// The Transpose stays for its other readers, if any. The replacement takes the Gather's name, output
// names and runtime info (an affinity), so what applications and HETERO see is unchanged.
#pragma once

#include <mosaic/model.hpp>

namespace mosaic {

// Rewrites every such Gather of `model`; validates the model when it changed one.
void gather_through_transposed_constants(Model& model);

}  // namespace mosaic
