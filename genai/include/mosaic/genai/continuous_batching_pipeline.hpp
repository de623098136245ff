// Many generations at once on one model, shaped as OpenVINO GenAI's
// ov::genai::ContinuousBatchingPipeline: requests are added at any time (from any thread) and each
// step() runs one decode step for every running request together, so the model's weights are read
// once per step for all of them (decode is bound by those reads). A request joins with its prompt's
// step at the next step() that finds a free row and leaves as soon as it finishes; its handle
// reads the tokens and text as they come.
//
//   mosaic::genai::ContinuousBatchingPipeline pipe("Qwen2.5-ov", {/*max_num_seqs*/ 8}, "CPU");
//   auto a = pipe.add_request(1, "The Sun is", config);
//   auto b = pipe.add_request(2, "Water boils at", config);
//   while (pipe.has_non_finished_requests()) pipe.step();
//   std::string text = a->read_all().text;
//
// Or generate(prompts, configs) for a list at once. Models: those LLMPipeline reads whose cache can
// slide (inputs attention_mask and position_ids: optimum's ONNX and optimum-intel's IR).
#pragma once

#include <mosaic/genai/generation_config.hpp>
#include <mosaic/genai/tokenizer.hpp>
#include <mosaic/properties.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mosaic::genai {

struct SchedulerConfig {
    size_t max_num_seqs = 8;  // requests decoded together: the rows of each step
};

enum class GenerationStatus {
    RUNNING,   // waiting for a row, or generating
    FINISHED,  // a stop id, a stop string, max_new_tokens or the model's length
    CANCEL,    // dropped by its handle
    IGNORED    // ended by a step that failed (the error step() threw): what it generated stays readable
};

struct GenerationOutput {
    std::vector<int64_t> generated_ids;
    std::string text;  // decoded, with the folder's tokenizer (empty without one)
    float score = 0;   // the sum of the chosen tokens' log-probabilities (read_all)
};

class GenerationHandleImpl {
public:
    GenerationStatus get_status() const;
    // Whether read() has something new.
    bool can_read() const;
    // The tokens and text generated since the last read().
    GenerationOutput read();
    // Everything generated so far.
    GenerationOutput read_all() const;
    // Stops the request: its row is freed at the next step.
    void drop();

private:
    friend class ContinuousBatchingPipeline;
    mutable std::mutex lock_;
    GenerationStatus status_ = GenerationStatus::RUNNING;
    GenerationOutput all_;
    size_t read_ids_ = 0, read_text_ = 0;
};
using GenerationHandle = std::shared_ptr<GenerationHandleImpl>;

struct GenerationResult {
    uint64_t m_request_id = 0;
    std::vector<std::string> m_generation_ids;  // the text
    std::vector<float> m_scores;
    GenerationStatus m_status = GenerationStatus::RUNNING;
};

struct EncodedGenerationResult {
    uint64_t m_request_id = 0;
    std::vector<std::vector<int64_t>> m_generation_ids;
    std::vector<float> m_scores;
    GenerationStatus m_status = GenerationStatus::RUNNING;
};

class ContinuousBatchingPipeline {
public:
    // Reads the folder as LLMPipeline does and compiles the model on `device`. Throws naming the
    // folder where the model's cache cannot slide.
    ContinuousBatchingPipeline(const std::filesystem::path& models_path, const SchedulerConfig& scheduler_config,
                               const std::string& device, const AnyMap& properties = {});
    ~ContinuousBatchingPipeline();

    // Queues a request; thread-safe. Throws std::invalid_argument at once for a bad config, an
    // empty prompt or one with no room left under the model's length (a prompt string needs the
    // folder's tokenizer).
    GenerationHandle add_request(uint64_t request_id, const std::string& prompt, const GenerationConfig& config);
    GenerationHandle add_request(uint64_t request_id, const std::vector<int64_t>& input_ids, const GenerationConfig& config);
    // Starts the waiting requests that have rows, then one decode step of every running one.
    // One step() at a time (concurrent calls wait). When the device fails (no memory left, ...),
    // the requests of the failed part end IGNORED, their rows freed, and the error is thrown; the
    // other requests go on at the next step.
    void step();
    bool has_non_finished_requests();
    // Steps until every request of the list has finished.
    std::vector<GenerationResult> generate(const std::vector<std::string>& prompts,
                                           const std::vector<GenerationConfig>& configs);
    std::vector<EncodedGenerationResult> generate(const std::vector<std::vector<int64_t>>& input_ids,
                                                  const std::vector<GenerationConfig>& configs);

    GenerationConfig get_config() const;  // the folder's generation_config.json
    const Tokenizer& get_tokenizer() const;
    // The requests the last step() decoded together (0 when it decoded none).
    size_t last_step_rows() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace mosaic::genai
