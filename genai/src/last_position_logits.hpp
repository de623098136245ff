// A generation step needs the logits of its last position only, but a decoder as exported computes
// them for every position it is given: the vocabulary projection (lm_head) over [1, L, hidden] on a
// prompt, about a quarter of a small model's prefill, and a [1, L, vocabulary] result (219 MB for
// 360 tokens of Qwen2.5's 151,936). As OpenVINO GenAI does, the hidden states are sliced to the last
// position before the projection, so the logits come out [1, 1, vocabulary].
#pragma once

#include <mosaic/model.hpp>

namespace mosaic::genai {

// Whether the model was changed: false, and the model left as it was, when its "logits" do not
// come from a MatMul of [batch, positions, hidden] by a matrix through per-position ops only
// (Convert, Tanh, and Add/Subtract/Multiply/Divide by a one-element constant: a logit soft-cap or
// scale), each read by the next alone.
bool slice_logits_to_last_position(Model& model);

}  // namespace mosaic::genai
