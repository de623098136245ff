// Chat templates: the Jinja templates Hugging Face models carry in tokenizer_config.json
// ("chat_template"), rendered as transformers' apply_chat_template renders them (Jinja2 with
// trim_blocks and lstrip_blocks). No maintained C++ Jinja engine is packaged for Debian, so this is
// Mosaic's own, for the subset chat templates use; docs/genai.md lists it. A template outside the
// subset fails when it is read, naming the line, the column and the construct.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mosaic::genai {

// A template that cannot be read or rendered: the message names the line and column in the
// template, the construct, and for raise_exception() the template's own message.
class ChatTemplateError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

using ChatMessage = std::map<std::string, std::string>;  // {"role": "user", "content": "..."}
using ChatHistory = std::vector<ChatMessage>;

class ChatTemplate {
public:
    // Parses `source` once; rendering may then run from many threads at once.
    explicit ChatTemplate(const std::string& source);
    ~ChatTemplate();
    ChatTemplate(ChatTemplate&&) noexcept;
    ChatTemplate& operator=(ChatTemplate&&) noexcept;

    // Renders with `context`'s members as the template's variables (messages, add_generation_prompt,
    // bos_token, eos_token, tools, ... as apply_chat_template passes them). An undefined variable is
    // Jinja's Undefined (falsy, empty when printed), as in transformers.
    std::string render(const nlohmann::json& context) const;
    // The same with the context's key order kept (nlohmann::json sorts keys): tojson then prints
    // dicts in the caller's order, as Python's json.dumps does.
    std::string render_ordered(const nlohmann::ordered_json& context) const;

    // apply_chat_template's usual call: messages, add_generation_prompt, bos_token, eos_token.
    std::string apply(const ChatHistory& history, bool add_generation_prompt, const std::string& bos_token = "",
                      const std::string& eos_token = "") const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace mosaic::genai
