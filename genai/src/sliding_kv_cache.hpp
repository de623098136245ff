// The KV cache in buffers of a fixed capacity that steps read and write in turn, never copied
// between steps. As exported, a decoder appends a step's keys and values to the past it is
// given (present = Concat(past, new)), so present is longer than past and cannot be the next
// step's past without a copy. Rewritten, each past_key_values.N input is a buffer of a fixed
// capacity C whose first n positions (n: the tokens the step appends) are dropped before the model
// reads it: the model sees a past of C - n positions, appends n, and its present has C positions
// again, the shape of the buffer. A step then binds one buffer as past and a second as present,
// and the next step the other way round: the cache stays where the device keeps it (device memory
// on a GPU, remote_context.hpp) and nothing but the logits crosses to the host.
//
// The written positions sit at the end of the buffer, the unwritten ones before them, hidden by
// the attention mask (zeros there): the model's causal mask, which puts the new tokens after the
// past's C - n positions, holds, and the dropped first n positions are unwritten ones as long as
// the cache holds C - n positions at most. Position ids are given, so where a key sits in the
// buffer does not change its rotary position.
#pragma once

#include <mosaic/model.hpp>

namespace mosaic::genai {

// Whether the model was rewritten. Left as it was (false) unless it has input_ids, attention_mask
// and position_ids inputs (which say where a step's tokens are) and every past_key_values.* input
// has one dynamic dimension besides the batch (the positions).
bool slide_kv_cache(Model& model);

}  // namespace mosaic::genai
