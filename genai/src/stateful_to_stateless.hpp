// The KV cache of a stateful decoder (optimum-intel's IR: ReadValue/Assign variables) turned into
// inputs and outputs, as OpenVINO GenAI's static pipeline does with ov::pass::StatefulToStateless:
// each variable becomes an input past_key_values.<k> and an output present.<k>, so the pipeline
// holds the cache itself and can keep its shape fixed from step to step (decoder_model.hpp).
#pragma once

#include <mosaic/model.hpp>

#include <memory>

namespace mosaic::genai {

// Rewrites `model` in place; returns how many variables it had (0: nothing changed). Throws
// std::runtime_error naming the variable when a ReadValue has no Assign or the reverse.
size_t stateful_to_stateless(Model& model);

}  // namespace mosaic::genai
