#include <mosaic/genai/llm_pipeline.hpp>

#include <mosaic/genai/chat_template.hpp>

#include "decoder_model.hpp"
#include "generation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>

namespace mosaic::genai {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void fill_rates(PerfMetrics& m) {
    if (m.token_ms.size() > 1) {
        double rest = 0;
        for (size_t i = 1; i < m.token_ms.size(); ++i) rest += m.token_ms[i];
        m.tpot_ms = rest / static_cast<double>(m.token_ms.size() - 1);
        m.throughput = m.tpot_ms > 0 ? 1000.0 / m.tpot_ms : 0;
    }
}

}  // namespace

struct LLMPipeline::Impl {
    fs::path folder;
    Core core;
    std::unique_ptr<DecoderModel> decoder;
    std::optional<Tokenizer> tokenizer;
    std::optional<ChatTemplate> chat_template;
    GenerationConfig config;
    // One generation at a time (the decoder holds one sequence). The config has a lock of its own,
    // so that a streamer may read it while a generation runs.
    std::mutex busy, config_lock;

    // A conversation: its messages, and the tokens the cache holds (the rendered history and the
    // replies), which the next turn reuses where its tokens begin with them.
    bool chatting = false;
    ChatHistory history;
    std::vector<int64_t> cached;
    bool cancelled = false;  // the streamer cancelled the current turn

    const Tokenizer& need_tokenizer() const {
        if (!tokenizer)
            throw std::runtime_error(folder.string() + " has no tokenizer.json: the pipeline can generate from token ids " +
                                     "only; put the model's tokenizer.json (and tokenizer_config.json) in the folder");
        return *tokenizer;
    }

    // The generation loop: continues `prompt`, reusing the cache where it holds the beginning of
    // the prompt if `reuse_cache`; `text` receives the decoded new text.
    EncodedResults run(const std::vector<int64_t>& prompt, bool reuse_cache, GenerationConfig config,
                       const StreamerFunction& streamer, std::string* text);

    // The model's chat template, read on first use: chat_template.jinja, where transformers 4.43+
    // saves it, else tokenizer_config.json's chat_template.
    const ChatTemplate& chat() {
        if (!chat_template) {
            std::optional<std::string> source;
            if (std::ifstream file{folder / "chat_template.jinja"}) {
                source = std::string(std::istreambuf_iterator<char>(file), {});
            } else {
                source = need_tokenizer().chat_template();
            }
            if (!source)
                throw std::runtime_error(folder.string() + " has no chat template (chat_template.jinja, or chat_template " +
                                         "in tokenizer_config.json); a chat needs the model's template");
            try {
                chat_template.emplace(*source);
            } catch (const ChatTemplateError& e) {
                throw std::runtime_error(folder.string() + ": the chat template cannot be read: " + e.what());
            }
        }
        return *chat_template;
    }
};

LLMPipeline::LLMPipeline(const fs::path& model_dir, const std::string& device, const AnyMap& properties)
    : impl_(std::make_unique<Impl>()) {
    impl_->folder = model_dir;
    impl_->decoder = open_decoder(impl_->core, model_dir, device, properties);
    FolderGeneration folder = read_generation(model_dir);
    impl_->config = std::move(folder.config);
    impl_->tokenizer = std::move(folder.tokenizer);
}

LLMPipeline::~LLMPipeline() = default;
LLMPipeline::LLMPipeline(LLMPipeline&&) noexcept = default;
LLMPipeline& LLMPipeline::operator=(LLMPipeline&&) noexcept = default;

EncodedResults LLMPipeline::Impl::run(const std::vector<int64_t>& prompt, bool reuse_cache, GenerationConfig given,
                                      const StreamerFunction& streamer, std::string* text) {
    const Clock::time_point start = Clock::now();
    const GenerationConfig config = checked_config(std::move(given), prompt.size(), decoder->max_length());
    if (!config.stop_strings.empty() || streamer) need_tokenizer();

    // The cache is kept when it holds a beginning of this prompt (a chat's earlier turns), else
    // the sequence starts over.
    size_t reuse = 0;
    if (reuse_cache && cached.size() < prompt.size() && decoder->length() == cached.size() &&
        std::equal(cached.begin(), cached.end(), prompt.begin()))
        reuse = cached.size();
    if (reuse == 0) decoder->reset();
    cached.clear();

    EncodedResults result;
    PerfMetrics& perf = result.perf_metrics;
    perf.num_input_tokens = prompt.size();
    std::vector<float> logits = decoder->step(std::vector<int64_t>(prompt.begin() + static_cast<long>(reuse), prompt.end()));

    Generation generation(config, prompt, decoder->max_length(), tokenizer ? &*tokenizer : nullptr, text || streamer);
    Clock::time_point token_start = start;
    for (bool stop = false; !stop;) {
        const Generation::Token token = generation.next(logits);
        stop = token.last;
        if (streamer && !token.piece.empty()) {
            const StreamingStatus status = streamer(token.piece);
            if (status != StreamingStatus::RUNNING) stop = true;
            if (status == StreamingStatus::CANCEL) cancelled = true;
        }
        perf.token_ms.push_back(ms_since(token_start));
        token_start = Clock::now();
        if (!stop) logits = decoder->step({token.id});
    }
    perf.detokenization_ms = generation.detokenization_ms();
    perf.ttft_ms = perf.token_ms.front();
    perf.num_generated_tokens = generation.generated().size();
    perf.generate_ms = ms_since(start);
    fill_rates(perf);
    if (text) *text = generation.text();
    // The cache holds every token but the last one chosen, which was never run.
    cached.assign(generation.context().begin(), generation.context().end() - 1);
    result.tokens.push_back(generation.generated());
    result.scores.push_back(generation.score());
    return result;
}

EncodedResults LLMPipeline::generate(const std::vector<int64_t>& input_ids, const GenerationConfig& config,
                                     StreamerFunction streamer) {
    std::lock_guard<std::mutex> lock(impl_->busy);
    return impl_->run(input_ids, false, config, streamer, nullptr);
}

DecodedResults LLMPipeline::generate(const std::string& prompt, const GenerationConfig& config, StreamerFunction streamer) {
    std::lock_guard<std::mutex> lock(impl_->busy);
    Impl& m = *impl_;
    const Tokenizer& tokenizer = m.need_tokenizer();
    const Clock::time_point start = Clock::now();
    std::vector<int64_t> ids;
    if (m.chatting) {
        m.history.push_back({{"role", "user"}, {"content", prompt}});
        try {
            // The template writes the special tokens (BOS among them) itself.
            ids = tokenizer.encode(m.chat().apply(m.history, true, tokenizer.bos_token().value_or(""),
                                                  tokenizer.eos_token().value_or("")),
                                   false);
        } catch (...) {
            m.history.pop_back();
            throw;
        }
    } else {
        ids = tokenizer.encode(prompt, true);
    }
    const double tokenization_ms = ms_since(start);
    DecodedResults decoded;
    std::string text;
    m.cancelled = false;
    EncodedResults encoded;
    try {
        encoded = m.run(ids, m.chatting, config, streamer, &text);
    } catch (...) {
        if (m.chatting) m.history.pop_back();
        throw;
    }
    if (m.chatting) {
        if (m.cancelled) m.history.pop_back();  // CANCEL: this turn is forgotten
        else m.history.push_back({{"role", "assistant"}, {"content", text}});
    }
    decoded.texts.push_back(std::move(text));
    decoded.scores = encoded.scores;
    decoded.perf_metrics = encoded.perf_metrics;
    decoded.perf_metrics.tokenization_ms = tokenization_ms;
    decoded.perf_metrics.ttft_ms += tokenization_ms;
    decoded.perf_metrics.generate_ms += tokenization_ms;
    return decoded;
}

DecodedResults LLMPipeline::generate(const std::string& prompt, const AnyMap& parameters, StreamerFunction streamer) {
    GenerationConfig config = get_generation_config();
    config.update(parameters);
    return generate(prompt, config, std::move(streamer));
}

GenerationConfig LLMPipeline::get_generation_config() const {
    std::lock_guard<std::mutex> lock(impl_->config_lock);
    return impl_->config;
}

void LLMPipeline::set_generation_config(const GenerationConfig& config) {
    config.validate();
    std::lock_guard<std::mutex> lock(impl_->config_lock);
    impl_->config = config;
}

const Tokenizer& LLMPipeline::get_tokenizer() const { return impl_->need_tokenizer(); }
bool LLMPipeline::has_tokenizer() const { return impl_->tokenizer.has_value(); }
const std::string& LLMPipeline::device() const { return impl_->decoder->device(); }

void LLMPipeline::start_chat(const std::string& system_message) {
    std::lock_guard<std::mutex> lock(impl_->busy);
    impl_->chat();  // a model without a chat template cannot chat: say so now, not at the first turn
    impl_->chatting = true;
    impl_->history.clear();
    impl_->cached.clear();
    if (!system_message.empty()) impl_->history.push_back({{"role", "system"}, {"content", system_message}});
}

void LLMPipeline::finish_chat() {
    std::lock_guard<std::mutex> lock(impl_->busy);
    impl_->chatting = false;
    impl_->history.clear();
    impl_->cached.clear();
}

}  // namespace mosaic::genai
