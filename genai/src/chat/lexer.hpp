// Splits a template into jinja2's tokens, applying its whitespace rules while doing so (as jinja2's
// lexer does): trim_blocks, lstrip_blocks, `-`/`+` markers, the dropped final newline.
#pragma once

#include <string>
#include <vector>

namespace mosaic::genai::chat {

struct Token {
    enum class Kind { Data, VarBegin, VarEnd, BlockBegin, BlockEnd, Name, String, Integer, Float, Operator, End };
    Kind kind;
    std::string text;  // Data: the text; String: the unescaped value; others: as written
    int line = 1;
    int column = 1;
};

// Throws ChatTemplateError ("line L:C: ...").
std::vector<Token> tokenize(const std::string& source);

}  // namespace mosaic::genai::chat
