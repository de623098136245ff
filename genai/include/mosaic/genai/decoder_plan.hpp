// How a device would run an LLM folder's decoder, without compiling it: the pipeline's model (as
// LLMPipeline compiles it: the KV cache inputs marked at their planned length) at the shapes of the
// first step on a prompt, handed to Core::query_model_details. On HETERO with
// MODEL_DISTRIBUTION_POLICY PIPELINE_PARALLEL its QueryResult::plan says what each device would
// hold, weights, KV cache and activations, against its memory (`mosaic plan -m LLM_DIR`).
#pragma once

#include <mosaic/core.hpp>

#include <filesystem>
#include <string>

namespace mosaic::genai {

// `properties` as LLMPipeline takes them (KV_CACHE_PLAN_LENGTH included); `prompt_length` >= 1.
// Throws as LLMPipeline's constructor does for a folder that is not a decoder's, and as
// query_model_details does for a plan that cannot be honoured.
QueryResult plan_decoder(Core& core, const std::filesystem::path& folder, const std::string& device, size_t prompt_length,
                         const AnyMap& properties = {});

}  // namespace mosaic::genai
