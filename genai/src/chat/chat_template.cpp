// mosaic::genai::ChatTemplate: the template parsed once (tokens, then the AST), rendered per call.
#include "mosaic/genai/chat_template.hpp"

#include "chat/lexer.hpp"
#include "chat/parser.hpp"
#include "chat/renderer.hpp"

namespace mosaic::genai {

struct ChatTemplate::Impl {
    chat::Body body;
};

ChatTemplate::ChatTemplate(const std::string& source) : impl_(std::make_unique<Impl>()) {
    impl_->body = chat::parse(chat::tokenize(source));
}

ChatTemplate::~ChatTemplate() = default;
ChatTemplate::ChatTemplate(ChatTemplate&&) noexcept = default;
ChatTemplate& ChatTemplate::operator=(ChatTemplate&&) noexcept = default;

std::string ChatTemplate::render_ordered(const nlohmann::ordered_json& context) const {
    if (!context.is_object()) throw ChatTemplateError("chat template context must be a JSON object");
    return chat::render(impl_->body, context);
}

std::string ChatTemplate::render(const nlohmann::json& context) const {
    // nlohmann::json has already sorted the keys; the order tojson prints is that order.
    return render_ordered(nlohmann::ordered_json(context));
}

std::string ChatTemplate::apply(const ChatHistory& history, bool add_generation_prompt, const std::string& bos_token,
                                const std::string& eos_token) const {
    nlohmann::ordered_json messages = nlohmann::ordered_json::array();
    for (const auto& message : history) {
        nlohmann::ordered_json m = nlohmann::ordered_json::object();
        // role first, then content, then the rest: the order a Python caller writes them in.
        for (const char* key : {"role", "content"}) {
            auto it = message.find(key);
            if (it != message.end()) m[key] = it->second;
        }
        for (const auto& [k, v] : message)
            if (k != "role" && k != "content") m[k] = v;
        messages.push_back(std::move(m));
    }
    // As transformers' render_jinja_template: tools and documents are passed, as None.
    nlohmann::ordered_json context = {{"messages", std::move(messages)},
                                      {"tools", nullptr},
                                      {"documents", nullptr},
                                      {"add_generation_prompt", add_generation_prompt},
                                      {"bos_token", bos_token},
                                      {"eos_token", eos_token}};
    return render_ordered(context);
}

}  // namespace mosaic::genai
