#include <mosaic/genai/continuous_batching_pipeline.hpp>

#include "batched_decoder.hpp"
#include "generation.hpp"

#include <algorithm>
#include <deque>
#include <optional>
#include <stdexcept>

namespace mosaic::genai {

namespace fs = std::filesystem;

GenerationStatus GenerationHandleImpl::get_status() const {
    std::lock_guard<std::mutex> lock(lock_);
    return status_;
}

bool GenerationHandleImpl::can_read() const {
    std::lock_guard<std::mutex> lock(lock_);
    return read_ids_ < all_.generated_ids.size() || read_text_ < all_.text.size();
}

GenerationOutput GenerationHandleImpl::read() {
    std::lock_guard<std::mutex> lock(lock_);
    GenerationOutput out;
    out.generated_ids.assign(all_.generated_ids.begin() + static_cast<long>(read_ids_), all_.generated_ids.end());
    out.text = all_.text.substr(read_text_);
    out.score = all_.score;
    read_ids_ = all_.generated_ids.size();
    read_text_ = all_.text.size();
    return out;
}

GenerationOutput GenerationHandleImpl::read_all() const {
    std::lock_guard<std::mutex> lock(lock_);
    return all_;
}

void GenerationHandleImpl::drop() {
    std::lock_guard<std::mutex> lock(lock_);
    if (status_ == GenerationStatus::RUNNING) status_ = GenerationStatus::CANCEL;
}

struct ContinuousBatchingPipeline::Impl {
    struct Request {
        uint64_t id = 0;
        std::vector<int64_t> prompt;
        GenerationConfig config;
        GenerationHandle handle;
    };
    struct Running {
        GenerationHandle handle;
        size_t row = 0;
        std::unique_ptr<Generation> generation;
        int64_t next_token = 0;  // chosen, not yet run
    };

    fs::path folder;
    Core core;
    std::optional<Tokenizer> tokenizer;
    GenerationConfig config;
    std::unique_ptr<BatchedDecoder> decoder;
    std::mutex queue_lock;  // waiting
    std::deque<Request> waiting;
    std::mutex step_lock;  // running, the decoder
    std::vector<Running> running;
    size_t last_rows = 0;

    const Tokenizer& need_tokenizer() const {
        if (!tokenizer)
            throw std::invalid_argument(folder.string() + " has no tokenizer.json: requests can be token ids only; put "
                                        "the model's tokenizer.json in the folder");
        return *tokenizer;
    }

    // The token a request's generation chose, given to its handle; true when it was the last.
    static bool publish(const Running& r, const Generation::Token& token) {
        std::lock_guard<std::mutex> lock(r.handle->lock_);
        r.handle->all_.generated_ids.push_back(token.id);
        r.handle->all_.text += token.piece;
        r.handle->all_.score = r.generation->score();
        if (token.last && r.handle->status_ == GenerationStatus::RUNNING) r.handle->status_ = GenerationStatus::FINISHED;
        return token.last;
    }

    // Rows of requests their handles dropped are freed.
    void drop_cancelled() {
        for (auto it = running.begin(); it != running.end();) {
            if (it->handle->get_status() != GenerationStatus::CANCEL) {
                ++it;
                continue;
            }
            decoder->remove(it->row);
            it = running.erase(it);
        }
    }

    // Waiting requests start while rows are free: their prompt's step and first token.
    void admit() {
        while (decoder->active() < decoder->rows()) {
            Request request;
            {
                std::lock_guard<std::mutex> lock(queue_lock);
                if (waiting.empty()) return;
                request = std::move(waiting.front());
                waiting.pop_front();
            }
            if (request.handle->get_status() != GenerationStatus::RUNNING) continue;  // dropped while waiting
            std::pair<size_t, std::vector<float>> added;
            try {
                added = decoder->add(request.prompt);
            } catch (...) {
                ignore(*request.handle);
                throw;
            }
            auto& [row, logits] = added;
            Running r{request.handle, row,
                      std::make_unique<Generation>(request.config, request.prompt, decoder->max_length(),
                                                   tokenizer ? &*tokenizer : nullptr, true)};
            const Generation::Token token = r.generation->next(logits);
            if (publish(r, token)) {
                decoder->remove(row);
                continue;
            }
            r.next_token = token.id;
            running.push_back(std::move(r));
        }
    }

    static void ignore(GenerationHandleImpl& handle) {
        std::lock_guard<std::mutex> lock(handle.lock_);
        if (handle.status_ == GenerationStatus::RUNNING) handle.status_ = GenerationStatus::IGNORED;
    }

    void decode() {
        if (running.empty()) return;
        std::vector<std::pair<size_t, int64_t>> tokens;
        for (const Running& r : running) tokens.emplace_back(r.row, r.next_token);
        std::vector<std::vector<float>> logits;
        try {
            logits = decoder->step(tokens);
        } catch (...) {
            // The rows' caches are not known any more: their requests end.
            for (Running& r : running) {
                ignore(*r.handle);
                decoder->remove(r.row);
            }
            running.clear();
            throw;
        }
        last_rows = tokens.size();
        std::vector<Running> still;
        for (size_t k = 0; k < running.size(); ++k) {
            Running& r = running[k];
            const Generation::Token token = r.generation->next(logits[k]);
            if (publish(r, token)) {
                decoder->remove(r.row);
                continue;
            }
            r.next_token = token.id;
            still.push_back(std::move(r));
        }
        running = std::move(still);
    }
};

ContinuousBatchingPipeline::ContinuousBatchingPipeline(const fs::path& models_path, const SchedulerConfig& scheduler_config,
                                                       const std::string& device, const AnyMap& properties)
    : impl_(std::make_unique<Impl>()) {
    if (scheduler_config.max_num_seqs == 0 || scheduler_config.max_num_seqs > 1024)
        throw std::invalid_argument("SchedulerConfig.max_num_seqs must be 1 to 1024, got " +
                                    std::to_string(scheduler_config.max_num_seqs));
    impl_->folder = models_path;
    impl_->decoder = std::make_unique<BatchedDecoder>(impl_->core, models_path, device, properties, scheduler_config.max_num_seqs);
    FolderGeneration folder = read_generation(models_path);
    impl_->config = std::move(folder.config);
    impl_->tokenizer = std::move(folder.tokenizer);
}

ContinuousBatchingPipeline::~ContinuousBatchingPipeline() = default;

GenerationHandle ContinuousBatchingPipeline::add_request(uint64_t request_id, const std::string& prompt,
                                                         const GenerationConfig& config) {
    return add_request(request_id, impl_->need_tokenizer().encode(prompt, true), config);
}

GenerationHandle ContinuousBatchingPipeline::add_request(uint64_t request_id, const std::vector<int64_t>& input_ids,
                                                         const GenerationConfig& config) {
    Impl::Request request{request_id, input_ids, checked_config(config, input_ids.size(), impl_->decoder->max_length()),
                          std::make_shared<GenerationHandleImpl>()};
    if (!request.config.stop_strings.empty()) impl_->need_tokenizer();
    GenerationHandle handle = request.handle;
    std::lock_guard<std::mutex> lock(impl_->queue_lock);
    impl_->waiting.push_back(std::move(request));
    return handle;
}

void ContinuousBatchingPipeline::step() {
    std::lock_guard<std::mutex> lock(impl_->step_lock);
    impl_->last_rows = 0;
    impl_->drop_cancelled();
    impl_->admit();
    impl_->decode();
}

bool ContinuousBatchingPipeline::has_non_finished_requests() {
    std::lock_guard<std::mutex> step(impl_->step_lock);
    std::lock_guard<std::mutex> queue(impl_->queue_lock);
    return !impl_->running.empty() || !impl_->waiting.empty();
}

namespace {

// Adds one request per prompt and steps until all have finished.
std::vector<GenerationHandle> run_all(ContinuousBatchingPipeline& pipe, const std::vector<std::vector<int64_t>>& input_ids,
                                      const std::vector<GenerationConfig>& configs) {
    if (configs.size() != input_ids.size() && configs.size() != 1)
        throw std::invalid_argument("generate: " + std::to_string(input_ids.size()) + " prompts and " +
                                    std::to_string(configs.size()) + " configs; give one config, or one per prompt");
    std::vector<GenerationHandle> handles;
    for (size_t i = 0; i < input_ids.size(); ++i)
        handles.push_back(pipe.add_request(i, input_ids[i], configs[configs.size() == 1 ? 0 : i]));
    const auto unfinished = [&] {
        return std::any_of(handles.begin(), handles.end(),
                           [](const GenerationHandle& h) { return h->get_status() == GenerationStatus::RUNNING; });
    };
    while (unfinished()) pipe.step();
    return handles;
}

}  // namespace

std::vector<EncodedGenerationResult> ContinuousBatchingPipeline::generate(const std::vector<std::vector<int64_t>>& input_ids,
                                                                          const std::vector<GenerationConfig>& configs) {
    std::vector<EncodedGenerationResult> results;
    const std::vector<GenerationHandle> handles = run_all(*this, input_ids, configs);
    for (size_t i = 0; i < handles.size(); ++i) {
        const GenerationOutput out = handles[i]->read_all();
        results.push_back({i, {out.generated_ids}, {out.score}, handles[i]->get_status()});
    }
    return results;
}

std::vector<GenerationResult> ContinuousBatchingPipeline::generate(const std::vector<std::string>& prompts,
                                                                   const std::vector<GenerationConfig>& configs) {
    std::vector<std::vector<int64_t>> ids;
    for (const std::string& p : prompts) ids.push_back(impl_->need_tokenizer().encode(p, true));
    std::vector<GenerationResult> results;
    const std::vector<GenerationHandle> handles = run_all(*this, ids, configs);
    for (size_t i = 0; i < handles.size(); ++i) {
        const GenerationOutput out = handles[i]->read_all();
        results.push_back({i, {out.text}, {out.score}, handles[i]->get_status()});
    }
    return results;
}

GenerationConfig ContinuousBatchingPipeline::get_config() const { return impl_->config; }
const Tokenizer& ContinuousBatchingPipeline::get_tokenizer() const { return impl_->need_tokenizer(); }
size_t ContinuousBatchingPipeline::last_step_rows() const {
    std::lock_guard<std::mutex> lock(impl_->step_lock);
    return impl_->last_rows;
}

}  // namespace mosaic::genai
