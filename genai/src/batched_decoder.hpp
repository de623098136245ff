// Several sequences decoded together, a row each, as continuous batching serves them: a sequence
// joins with its prompt's step (run on its own, one row) and leaves between steps; every decode
// step runs all the rows at once, so each weight matrix is read once for all of them (decode is
// bound by those reads: rows come almost free). The cache slides (sliding_kv_cache.hpp) in buffers
// of [rows, .., capacity, ..], each row's written positions at its end and its own attention mask,
// so rows of different lengths share a step. Buffers in host memory: a row joining is a copy of
// its prompt's cache into the row.
#pragma once

#include "decoder_model.hpp"

#include <mosaic/core.hpp>

#include <cstdint>
#include <filesystem>
#include <utility>
#include <vector>

namespace mosaic::genai {

class BatchedDecoder {
public:
    // The decoder of a model folder (open_decoder's), for at most `rows` sequences at once. Throws
    // naming the folder where the model's cache cannot slide (no attention_mask or position_ids).
    BatchedDecoder(Core& core, const std::filesystem::path& folder, const std::string& device, const AnyMap& properties,
                   size_t rows);

    // Starts a sequence on a free row with its prompt's step; returns the row and the logits of the
    // prompt's last position. Throws std::length_error when every row is taken.
    std::pair<size_t, std::vector<float>> add(const std::vector<int64_t>& prompt);
    // One decode step: each (row, token) appends the token to that row's sequence; returns the
    // logits of each, in the same order. Rows not listed keep their sequences.
    std::vector<std::vector<float>> step(const std::vector<std::pair<size_t, int64_t>>& tokens);
    // Frees the row for another sequence.
    void remove(size_t row);

    size_t rows() const { return lengths_.size(); }
    size_t length(size_t row) const { return lengths_.at(row); }  // 0: free
    size_t active() const;
    std::optional<size_t> max_length() const { return max_length_; }  // config.json's
    const CompiledModel& compiled() const { return compiled_; }

private:
    void ensure_capacity(size_t needed);
    std::vector<Tensor> make_buffers(size_t rows, size_t positions) const;

    std::filesystem::path file_;
    CompiledModel compiled_;
    std::optional<size_t> max_length_;
    size_t logits_output_ = 0;
    std::vector<CachePair> pairs_;
    InferRequest prompt_request_, step_request_;
    std::vector<size_t> lengths_;  // by row: positions written, 0 for a free row
    size_t capacity_ = 0;
    // By pair: [rows, .., capacity_, ..]; buffers_[current_] holds the caches, the other takes the
    // next step's presents.
    std::vector<Tensor> buffers_[2];
    size_t current_ = 0;
    std::vector<Tensor> prompt_past_, prompt_present_;  // one row at capacity_, for a prompt's step
};

}  // namespace mosaic::genai
