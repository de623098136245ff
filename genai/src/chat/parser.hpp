// jinja2's grammar, for the subset chat templates use; anything else is refused by name.
#pragma once

#include "chat/ast.hpp"
#include "chat/lexer.hpp"

namespace mosaic::genai::chat {

// Throws ChatTemplateError with the line, column and construct.
Body parse(const std::vector<Token>& tokens);

}  // namespace mosaic::genai::chat
