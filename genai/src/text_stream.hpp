// The text of a generation as it grows token by token: what may be shown now, and whether a stop
// string has appeared. Text is held back while it ends inside a UTF-8 character (the tokenizer
// decodes a partial one as U+FFFD) or with the beginning of a stop string, so that what was
// streamed is always a prefix of the final text.
#pragma once

#include <mosaic/genai/tokenizer.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace mosaic::genai {

class TextStream {
public:
    TextStream(const Tokenizer& tokenizer, const std::set<std::string>& stop_strings, bool include_stop_string);

    // The generated tokens so far (the decode of all of them is the text). Returns the text that can
    // be shown now and was not before.
    std::string advance(const std::vector<int64_t>& generated);
    // The rest, once generation ends.
    std::string finish();

    bool stopped() const { return stopped_; }  // a stop string appeared: generation ends here
    const std::string& text() const { return text_; }  // the final text once stopped or finished

private:
    const Tokenizer& tokenizer_;
    std::set<std::string> stop_strings_;
    bool include_stop_string_;
    std::string text_;   // the decoded text so far (cut at the stop string once one appears)
    size_t shown_ = 0;   // bytes of text_ already returned
    bool stopped_ = false;
};

}  // namespace mosaic::genai
