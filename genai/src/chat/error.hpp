// Errors that name where in the template they happened.
#pragma once

#include "mosaic/genai/chat_template.hpp"

#include <string>

namespace mosaic::genai::chat {

// Throws ChatTemplateError("chat template line L:C: message").
[[noreturn]] void template_error(int line, int column, const std::string& message);

}  // namespace mosaic::genai::chat
