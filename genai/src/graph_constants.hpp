// Constants the pipeline's graph rewrites add (last_position_logits, sliding_kv_cache).
#pragma once

#include <mosaic/model.hpp>

#include <cstdint>
#include <string>

namespace mosaic::genai {

// An i64 [1] constant: a Slice's start, stop, step or axis.
inline Output i64_constant(Model& model, int64_t value, const std::string& name) {
    return model.add_constant(ElementType::i64, {1}, Buffer::copy_of(&value, sizeof value), name)->output(0);
}

}  // namespace mosaic::genai
