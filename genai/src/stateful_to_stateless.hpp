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

// The pipeline runs one row, so the IR's reordering of the cache by beam (Gather(past, beam_idx,
// axis 0), which optimum-intel puts after each ReadValue) is the identity: each is bypassed, which
// saves a copy of the whole cache per layer and step, and leaves the cache's readers the
// attention alone (so a device split keeps each layer's cache with its layer). beam_idx stays an
// input. Returns how many were bypassed.
size_t bypass_beam_reorder(Model& model);

}  // namespace mosaic::genai
