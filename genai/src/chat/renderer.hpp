// Runs a parsed template over a context, with jinja2's scoping (a for loop's body is a fresh scope
// per iteration; if/else is not a scope; a macro sees its defining scope as it is when called).
#pragma once

#include "chat/ast.hpp"

#include <string>

namespace mosaic::genai::chat {

// Bounds that keep hostile templates from exhausting the process.
struct RenderLimits {
    size_t max_output_bytes = size_t{64} << 20;  // everything written, macro output included
    int max_call_depth = 100;                     // nested macro calls
    uint64_t max_loop_iterations = 1'000'000;     // all loops of one render together
};

// `context` must be a JSON object; throws ChatTemplateError naming the line and column.
std::string render(const Body& body, const Json& context, const RenderLimits& limits = {});

}  // namespace mosaic::genai::chat
