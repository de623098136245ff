#include "text_stream.hpp"

#include <algorithm>

namespace mosaic::genai {

namespace {

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD, what a partial character decodes to

}  // namespace

TextStream::TextStream(const Tokenizer& tokenizer, const std::set<std::string>& stop_strings, bool include_stop_string)
    : tokenizer_(tokenizer), stop_strings_(stop_strings), include_stop_string_(include_stop_string) {}

std::string TextStream::advance(const std::vector<int64_t>& generated) {
    if (stopped_) return {};
    text_ = tokenizer_.decode(generated);
    // A stop string anywhere past what the previous tokens could already have completed ends the
    // text there (the earliest wins).
    size_t cut = std::string::npos, cut_end = 0;
    for (const std::string& stop : stop_strings_) {
        const size_t from = shown_ >= stop.size() ? shown_ - stop.size() + 1 : 0;
        const size_t at = text_.find(stop, from);
        if (at != std::string::npos && at < cut) cut = at, cut_end = at + stop.size();
    }
    if (cut != std::string::npos) {
        text_.resize(include_stop_string_ ? cut_end : cut);
        stopped_ = true;
        return finish();
    }
    // A character split over byte tokens decodes as one U+FFFD per byte so far: all of them wait.
    size_t visible = text_.size();
    while (visible >= 3 && text_.compare(visible - 3, 3, kReplacement) == 0) visible -= 3;
    // The longest tail that could still grow into a stop string waits.
    size_t hold = 0;
    for (const std::string& stop : stop_strings_)
        for (size_t n = std::min(stop.size() - 1, visible); n > hold; --n)
            if (text_.compare(visible - n, n, stop, 0, n) == 0) {
                hold = n;
                break;
            }
    visible -= hold;
    if (visible <= shown_) return {};
    std::string piece = text_.substr(shown_, visible - shown_);
    shown_ = visible;
    return piece;
}

std::string TextStream::finish() {
    if (shown_ >= text_.size()) return {};
    std::string piece = text_.substr(shown_);
    shown_ = text_.size();
    return piece;
}

}  // namespace mosaic::genai
