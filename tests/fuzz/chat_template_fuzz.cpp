// Chat templates (genai/src/chat): an input is a template, a NUL byte, then the JSON the template is
// rendered with (messages, add_generation_prompt, ...). A template outside the subset, a render
// error and raise_exception() are ChatTemplateError; nothing else may escape, and hostile templates
// (deep nesting, runaway loops or recursion, huge output) stop at their bounds.
#include "fuzz_scratch.hpp"
#include "fuzz_targets.hpp"

#include <mosaic/genai/chat_template.hpp>

#include <nlohmann/json.hpp>

namespace mosaic::fuzz {

void chat_template(const uint8_t* data, size_t size) {
    const auto [source, context_text] = split_at_nul(data, size);
    nlohmann::ordered_json context = nlohmann::ordered_json::parse(context_text, nullptr, /*allow_exceptions=*/false);
    if (!context.is_object())
        context = {{"messages", {{{"role", "user"}, {"content", std::string(context_text)}}}}, {"add_generation_prompt", true}};
    try {
        const genai::ChatTemplate t{std::string(source)};
        t.render_ordered(context);
    } catch (const genai::ChatTemplateError&) {
        // what the template or the data does wrong, with its line and column
    }
}

}  // namespace mosaic::fuzz
