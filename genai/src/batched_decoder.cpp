#include "batched_decoder.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace mosaic::genai {

namespace {

// The bytes of one row of a [rows, ...] tensor.
size_t row_bytes(const Tensor& t) { return t.get_byte_size() / static_cast<size_t>(t.get_shape()[0]); }

char* row_data(Tensor& t, size_t row) { return static_cast<char*>(t.data()) + row * row_bytes(t); }

}  // namespace

BatchedDecoder::BatchedDecoder(Core& core, const std::filesystem::path& folder, const std::string& device,
                               const AnyMap& properties, size_t rows)
    : lengths_(rows, 0) {
    if (rows == 0) throw std::invalid_argument("BatchedDecoder: at least one row");
    AnyMap props = properties;
    DecoderSource source = read_decoder(core, folder, props);
    if (!source.sliding)
        throw std::runtime_error(source.file.string() + ": decoding several sequences together needs a model whose " +
                                 "cache can slide (inputs attention_mask and position_ids, which say where each row's " +
                                 "tokens are); this one is generated one sequence at a time");
    file_ = source.file;
    max_length_ = source.max_length;
    compiled_ = core.compile_model(source.model, device, props);
    logits_output_ = decoder_logits_output(file_, compiled_);
    pairs_ = pair_caches(file_, compiled_);
    prompt_request_ = compiled_.create_infer_request();
    step_request_ = compiled_.create_infer_request();
}

size_t BatchedDecoder::active() const {
    return static_cast<size_t>(std::count_if(lengths_.begin(), lengths_.end(), [](size_t n) { return n > 0; }));
}

std::vector<Tensor> BatchedDecoder::make_buffers(size_t rows, size_t positions) const {
    std::vector<Tensor> set;
    for (const CachePair& pair : pairs_) set.emplace_back(pair.type, pair.shape(positions, rows));
    return set;
}

void BatchedDecoder::ensure_capacity(size_t needed) {
    if (needed <= capacity_) return;
    const size_t grown = cache_capacity(needed, capacity_, max_length_);
    std::vector<Tensor> front = make_buffers(rows(), grown), back = make_buffers(rows(), grown);
    for (size_t i = 0; i < pairs_.size() && capacity_ > 0; ++i)
        for (size_t r = 0; r < rows(); ++r) {
            if (!lengths_[r]) continue;
            // Row r alone, as one-row tensors over the rows' memory.
            Tensor from(pairs_[i].type, pairs_[i].shape(capacity_), row_data(buffers_[current_][i], r));
            Tensor to(pairs_[i].type, pairs_[i].shape(grown), row_data(front[i], r));
            copy_positions(from, capacity_ - lengths_[r], to, grown - lengths_[r], lengths_[r], pairs_[i].axis);
        }
    buffers_[current_] = std::move(front);
    buffers_[1 - current_] = std::move(back);
    prompt_past_ = make_buffers(1, grown);
    prompt_present_ = make_buffers(1, grown);
    capacity_ = grown;
}

std::pair<size_t, std::vector<float>> BatchedDecoder::add(const std::vector<int64_t>& prompt) {
    if (prompt.empty()) throw std::invalid_argument("BatchedDecoder::add: the prompt needs at least one token");
    const auto free = std::find(lengths_.begin(), lengths_.end(), size_t{0});
    if (free == lengths_.end())
        throw std::length_error("BatchedDecoder: all " + std::to_string(rows()) + " rows are taken; remove a finished " +
                                "sequence first");
    const size_t row = static_cast<size_t>(free - lengths_.begin());
    ensure_capacity(prompt.size() + 1);
    set_rows_inputs(compiled_, prompt_request_, {prompt}, {0}, {sliding_mask(capacity_, prompt.size())});
    for (size_t i = 0; i < pairs_.size(); ++i) {
        prompt_request_.set_tensor(pairs_[i].past, prompt_past_[i]);  // its first positions dropped, the rest masked
        prompt_request_.set_tensor(compiled_.outputs()[pairs_[i].present_output], prompt_present_[i]);
    }
    prompt_request_.infer();
    for (size_t i = 0; i < pairs_.size(); ++i)
        std::memcpy(row_data(buffers_[current_][i], row), prompt_present_[i].data(), row_bytes(prompt_present_[i]));
    lengths_[row] = prompt.size();
    return {row, rows_logits(file_, prompt_request_, logits_output_, 1).front()};
}

std::vector<std::vector<float>> BatchedDecoder::step(const std::vector<std::pair<size_t, int64_t>>& tokens) {
    if (tokens.empty()) return {};
    size_t longest = 0;
    std::vector<int64_t> token_of(rows(), 0);
    std::vector<bool> stepped(rows(), false);
    for (const auto& [row, token] : tokens) {
        if (row >= rows() || !lengths_[row])
            throw std::invalid_argument("BatchedDecoder::step: row " + std::to_string(row) + " holds no sequence");
        if (stepped[row]) throw std::invalid_argument("BatchedDecoder::step: row " + std::to_string(row) + " given twice");
        stepped[row] = true;
        token_of[row] = token;
        longest = std::max(longest, lengths_[row]);
    }
    ensure_capacity(longest + 1);
    // The step runs the first `batch` rows, a power of two past the last one in use (the rows are
    // the outer dimension: a prefix of the buffers is a tensor of its own), so a few sequences do
    // not pay for the whole batch; each batch size is a shape compiled once.
    size_t last = 0;
    for (size_t r = 0; r < rows(); ++r)
        if (lengths_[r]) last = r;
    size_t batch = 1;
    while (batch < last + 1) batch *= 2;
    batch = std::min(batch, rows());
    // Every row of the step runs: one without a token this step sees only its dummy token (a mask
    // of one), and its cache is put back afterwards.
    std::vector<std::vector<int64_t>> ids(batch), masks(batch);
    std::vector<size_t> positions(batch, 0);
    for (size_t r = 0; r < batch; ++r) {
        ids[r] = {token_of[r]};
        masks[r] = sliding_mask(capacity_, stepped[r] ? lengths_[r] + 1 : 1);
        positions[r] = stepped[r] ? lengths_[r] : 0;
    }
    set_rows_inputs(compiled_, step_request_, ids, positions, masks);
    for (size_t i = 0; i < pairs_.size(); ++i) {
        const Shape shape = pairs_[i].shape(capacity_, batch);
        step_request_.set_tensor(pairs_[i].past, Tensor(pairs_[i].type, shape, row_data(buffers_[current_][i], 0)));
        step_request_.set_tensor(compiled_.outputs()[pairs_[i].present_output],
                                 Tensor(pairs_[i].type, shape, row_data(buffers_[1 - current_][i], 0)));
    }
    step_request_.infer();
    // Rows that did not step keep their cache as it was (the step slid it by one); the rows past
    // the batch are free.
    for (size_t r = 0; r < batch; ++r)
        if (!stepped[r] && lengths_[r])
            for (size_t i = 0; i < pairs_.size(); ++i)
                std::memcpy(row_data(buffers_[1 - current_][i], r), row_data(buffers_[current_][i], r),
                            row_bytes(buffers_[current_][i]));
    current_ = 1 - current_;
    const std::vector<std::vector<float>> all = rows_logits(file_, step_request_, logits_output_, batch);
    std::vector<std::vector<float>> out;
    for (const auto& [row, token] : tokens) {
        ++lengths_[row];
        out.push_back(all[row]);
    }
    return out;
}

void BatchedDecoder::remove(size_t row) {
    if (row >= rows()) throw std::out_of_range("BatchedDecoder::remove: no row " + std::to_string(row));
    lengths_[row] = 0;
}

}  // namespace mosaic::genai
