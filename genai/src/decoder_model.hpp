// A decoder LLM compiled on a device, run one step at a time: the tokens a step appends go in, the
// logits of the last position come out, and the KV cache is carried from step to step. Two forms
// of model folder, as the exporters write them:
// - optimum's ONNX with past_key_values (model.onnx): each step's present.N.key/value outputs hold
//   the cache the next step's past_key_values.N.key/value inputs read.
// - optimum-intel's stateful OpenVINO IR (openvino_model.xml): the cache is in variables, which the
//   pipeline turns into the same inputs and outputs (stateful_to_stateless.hpp).
// Devices compile static shapes, so a cache that grows a position per token would make every step
// a new compilation. The pipeline instead keeps the cache in buffers of a fixed capacity (growing by
// doubling) that a step reads whole and writes whole (sliding_kv_cache.hpp), the attention mask
// hiding the positions not yet written. Decode steps then have one shape per capacity, compiled
// once, and the buffers stay in the device's memory.
#pragma once

#include <mosaic/core.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mosaic::genai {

class DecoderModel {
public:
    virtual ~DecoderModel() = default;

    // Appends `tokens` (at least one) to the sequence and returns the logits of its last position,
    // one per vocabulary entry.
    virtual std::vector<float> step(const std::vector<int64_t>& tokens) = 0;
    // Forgets the sequence (the KV cache) for a new prompt.
    virtual void reset() = 0;

    size_t length() const { return length_; }  // tokens in the cache
    // The longest sequence the model was made for (config.json's max_position_embeddings or
    // n_positions), when the folder says.
    std::optional<size_t> max_length() const { return max_length_; }
    const std::string& device() const { return device_; }
    const std::filesystem::path& file() const { return file_; }
    const CompiledModel& compiled() const { return compiled_; }
    // The profiling records of the last step (PERF_COUNT on): what ran, and what crossed between
    // the host and the device.
    std::vector<ProfilingInfo> profiling() const { return request_.get_profiling_info(); }

protected:
    DecoderModel(std::filesystem::path file, CompiledModel compiled, std::optional<size_t> max_length);

    // Sets input_ids to `tokens`, position_ids (where the model has it) to first_position onward,
    // attention_mask to `mask`, and beam_idx (one row, which keeps its own cache).
    void set_sequence_inputs(InferRequest& request, const std::vector<int64_t>& tokens, size_t first_position,
                             const std::vector<int64_t>& mask) const;
    bool has_input(const std::string& name) const;

public:
    // Inputs other than these the subclass must feed; any left over is an input the pipeline does
    // not know, reported by name.
    static bool is_sequence_input(const std::string& name);

protected:
    // The last position's logits of the request's "logits" output ([1, length, vocab]).
    std::vector<float> last_logits(const InferRequest& request) const;

    std::filesystem::path file_;
    CompiledModel compiled_;
    InferRequest request_;  // the one the steps run on
    std::optional<size_t> max_length_;
    std::string device_;
    size_t length_ = 0;
    size_t logits_output_ = 0;
};

// The decoder of a model folder (an IR is preferred when the folder holds both) as the pipeline
// compiles it: the IR's state made inputs and outputs, the logits of the last position only, the
// past_key_values inputs marked as the KV cache, planned at KV_CACHE_PLAN_LENGTH (taken out of
// `properties`) or the model's longest sequence. Throws as open_decoder does.
struct DecoderSource {
    std::filesystem::path file;
    std::shared_ptr<Model> model;
    std::optional<size_t> max_length;  // config.json's
    bool sliding = false;               // the cache rewritten to slide (sliding_kv_cache.hpp)
};
DecoderSource read_decoder(Core& core, const std::filesystem::path& folder, AnyMap& properties);

// The decoder of a model folder (an IR is preferred when the folder holds both), compiled on
// `device` with `properties`. Throws std::runtime_error naming the folder when it holds neither, and
// the file and input or output when the model's inputs are not a decoder's (an unpaired past or
// present, an input the pipeline cannot feed).
std::unique_ptr<DecoderModel> open_decoder(Core& core, const std::filesystem::path& folder, const std::string& device,
                                           const AnyMap& properties);

// Whether a port answers to `name` (any of its tensor names: an exporter may give one tensor
// several).
bool answers_to(const PortDesc& port, const std::string& name);

std::unique_ptr<DecoderModel> make_full_sequence_decoder(std::filesystem::path file, CompiledModel compiled,
                                                         std::optional<size_t> max_length);
std::unique_ptr<DecoderModel> make_past_present_decoder(std::filesystem::path file, CompiledModel compiled,
                                                        std::optional<size_t> max_length, bool sliding);

// The index of a decoder's "logits" output. Throws naming the file when it has none, no input_ids,
// or an input the pipeline cannot feed.
size_t decoder_logits_output(const std::filesystem::path& file, const CompiledModel& compiled);
// Sets a decoder's inputs for rows of as many tokens each and masks of one length: row r's
// positions start at first_positions[r]; beam_idx keeps each row's own cache.
void set_rows_inputs(const CompiledModel& compiled, InferRequest& request, const std::vector<std::vector<int64_t>>& tokens,
                     const std::vector<size_t>& first_positions, const std::vector<std::vector<int64_t>>& masks);
// Each row's last position's logits of the "logits" output ([rows, length, vocab]).
std::vector<std::vector<float>> rows_logits(const std::filesystem::path& file, const InferRequest& request,
                                            size_t logits_output, size_t rows);

// A past_key_values.X input and the present.X output that feeds it at the next step.
struct CachePair {
    std::string past;
    size_t present_output = 0;
    ElementType type = ElementType::undefined;
    Shape empty_shape;  // the past of an empty cache: batch 1, no positions
    size_t axis = 0;    // the positions' dimension
    // The shape at `positions` for `rows` rows.
    Shape shape(size_t positions, size_t rows = 1) const {
        Shape s = empty_shape;
        s[0] = static_cast<int64_t>(rows);
        s[axis] = static_cast<int64_t>(positions);
        return s;
    }
};
// Every past_key_values.X input of `compiled` with its present.X output. Throws naming the file and
// the input or output when one is unpaired (a cache fed but never returned would be silently
// wrong) or a past has not one dynamic dimension besides the batch.
std::vector<CachePair> pair_caches(const std::filesystem::path& file, const CompiledModel& compiled);

// Copies `count` positions along `axis` from src (starting at src_at) to dst (at dst_at), host
// tensors of the same dimensions but along `axis`.
void copy_positions(const Tensor& src, size_t src_at, Tensor& dst, size_t dst_at, size_t count, size_t axis);

// The positions' dimension of a past_key_values input's shape: its one dynamic dimension besides
// the batch (dimension 0); none when it has another number of them.
std::optional<size_t> cache_positions_axis(const Shape& shape);

// The attention mask of a step over a sliding cache of `capacity` positions: ones for the last
// `visible` (the written positions and the step's new ones), zeros for the unwritten before them.
std::vector<int64_t> sliding_mask(size_t capacity, size_t visible);

// The positions of a sliding cache's buffers that hold `needed`, grown from `capacity` (0 at
// first): 64, doubling, kept within the model's longest sequence where `needed` allows (an export
// may hold position tables of that length: GPT-2's causal bias).
size_t cache_capacity(size_t needed, size_t capacity, std::optional<size_t> max_length);

}  // namespace mosaic::genai
