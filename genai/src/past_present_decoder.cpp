// Decoders whose cache goes out as present.X and comes back in as past_key_values.X (optimum's ONNX,
// and optimum-intel's IR once stateful_to_stateless has run). The cache lives in buffers of a fixed
// capacity along the positions (decoder_model.hpp): the prompt's step reads an empty past, each later
// step the whole buffer with the attention mask hiding what is not yet written, and after each step
// the new positions of the presents are copied into the buffer. A model without an attention mask
// or position ids cannot be told which positions are real; its cache grows by the presents
// themselves (a new shape per step).
#include "decoder_model.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace mosaic::genai {

namespace {

constexpr const char* kPast = "past_key_values.";
constexpr const char* kPresent = "present.";
constexpr size_t kFirstCapacity = 64;

class PastPresentDecoder final : public DecoderModel {
public:
    PastPresentDecoder(std::filesystem::path file, CompiledModel compiled, std::optional<size_t> max_length)
        : DecoderModel(std::move(file), std::move(compiled), max_length), request_(compiled_.create_infer_request()) {
        pair_pasts_with_presents();
        fixed_capacity_ = has_input("attention_mask") && has_input("position_ids");
        reset();
    }

    std::vector<float> step(const std::vector<int64_t>& tokens) override {
        const size_t n = tokens.size();
        const size_t read = fixed_capacity_ && length_ > 0 ? ensure_capacity(length_ + n, n) : length_;
        // Ones for the positions written and the new ones; zeros for the buffer's unwritten rest.
        std::vector<int64_t> mask(read + n, 0);
        std::fill(mask.begin(), mask.begin() + static_cast<long>(length_), 1);
        std::fill(mask.end() - static_cast<long>(n), mask.end(), 1);
        set_sequence_inputs(request_, tokens, length_, mask);
        for (size_t i = 0; i < pairs_.size(); ++i) request_.set_tensor(pairs_[i].past, length_ > 0 ? cache_[i] : empty_[i]);
        request_.infer();
        for (size_t i = 0; i < pairs_.size(); ++i) keep_new_positions(i, read, n);
        length_ += n;
        return last_logits(request_);
    }

    void reset() override {
        cache_.clear();
        empty_.clear();
        for (const Pair& p : pairs_) empty_.push_back(Tensor(p.type, p.empty_shape));
        capacity_ = 0;
        length_ = 0;
    }

private:
    struct Pair {
        std::string past;
        size_t present_output = 0;
        ElementType type = ElementType::undefined;
        Shape empty_shape;  // the past of an empty cache: batch 1, no positions
        size_t axis = 0;    // the positions' dimension
    };

    // Buffers of at least `needed` positions, doubling from kFirstCapacity; returns the capacity,
    // which a step then reads whole with its `appended` new positions after it. The two together
    // stay within the model's maximum length where they can (an export may hold position tables of
    // that length: GPT-2's causal bias).
    size_t ensure_capacity(size_t needed, size_t appended) {
        if (needed <= capacity_) return capacity_;
        size_t grown = std::max(kFirstCapacity, capacity_);
        while (grown < needed) grown *= 2;
        if (max_length_ && *max_length_ > appended) grown = std::max(needed, std::min(grown, *max_length_ - appended));
        for (size_t i = 0; i < pairs_.size(); ++i) {
            Shape shape = pairs_[i].empty_shape;
            shape[pairs_[i].axis] = static_cast<int64_t>(grown);
            Tensor bigger(pairs_[i].type, shape);
            if (i < cache_.size()) copy_positions(cache_[i], 0, bigger, 0, length_, pairs_[i].axis);
            if (i < cache_.size()) cache_[i] = bigger;
            else cache_.push_back(bigger);
        }
        capacity_ = grown;
        return capacity_;
    }

    // After a step that read `read` positions of past and appended `n`: the present's positions
    // [read, read + n) go to the cache at [length_, length_ + n).
    void keep_new_positions(size_t i, size_t read, size_t n) {
        const Tensor present = request_.get_output_tensor(pairs_[i].present_output);
        const size_t axis = pairs_[i].axis;
        bool fits = present.get_element_type() == pairs_[i].type && present.get_shape().size() == pairs_[i].empty_shape.size() &&
                    static_cast<size_t>(present.get_shape()[axis]) == read + n;
        for (size_t d = 1; fits && d < pairs_[i].empty_shape.size(); ++d)
            fits = d == axis || present.get_shape()[d] == pairs_[i].empty_shape[d];
        if (!fits)
            throw std::runtime_error(file_.string() + ": output '" + compiled_.outputs()[pairs_[i].present_output].name +
                                     "' is " + to_string(present.get_element_type()) + " " + to_string(present.get_shape()) +
                                     " after a step that read " + std::to_string(read) + " positions and added " +
                                     std::to_string(n) + "; a present is its past (" + to_string(pairs_[i].type) +
                                     ") with the new positions appended");
        if (!fixed_capacity_) {
            cache_.resize(pairs_.size());
            cache_[i] = present.clone();  // the next step reads it while the request writes anew
            return;
        }
        if (length_ == 0) ensure_capacity(n + 1, 1);  // the prompt's step: the buffers are made
        copy_positions(present, read, cache_[i], length_, n, axis);
    }

    // Copies `count` positions along `axis` from src (starting at src_at) to dst (at dst_at); both
    // have the same dimensions but along `axis`.
    static void copy_positions(const Tensor& src, size_t src_at, Tensor& dst, size_t dst_at, size_t count, size_t axis) {
        const Shape& s = src.get_shape();
        const Shape& d = dst.get_shape();
        size_t outer = 1, inner = element_size(src.get_element_type());
        for (size_t k = 0; k < axis; ++k) outer *= static_cast<size_t>(s[k]);
        for (size_t k = axis + 1; k < s.size(); ++k) inner *= static_cast<size_t>(s[k]);
        const auto* from = static_cast<const char*>(src.data());
        auto* to = static_cast<char*>(dst.data());
        for (size_t o = 0; o < outer; ++o)
            std::memcpy(to + (o * static_cast<size_t>(d[axis]) + dst_at) * inner,
                        from + (o * static_cast<size_t>(s[axis]) + src_at) * inner, count * inner);
    }

    // Every past_key_values.X input takes the present.X output; anything unpaired is an error, for
    // a cache that is fed but never returned (or the reverse) would be silently wrong.
    void pair_pasts_with_presents() {
        const std::string where = file_.string() + ": ";
        std::vector<bool> paired(compiled_.outputs().size(), false);
        for (const PortDesc& in : compiled_.inputs()) {
            if (in.name.rfind(kPast, 0) != 0) continue;
            const std::string present = kPresent + in.name.substr(std::string(kPast).size());
            Pair pair{in.name, 0, in.type, in.shape, 0};
            bool found = false;
            for (size_t o = 0; o < compiled_.outputs().size() && !found; ++o)
                if (answers_to(compiled_.outputs()[o], present)) pair.present_output = o, paired[o] = found = true;
            if (!found)
                throw std::runtime_error(where + "input '" + in.name + "' has no output '" + present +
                                         "' to take its value from at the next step; the pipeline binds each present.N.* " +
                                         "output to the past_key_values.N.* input of the same N");
            // Batch (dimension 0) is one row; the one other dynamic dimension is the positions.
            size_t dynamic = 0;
            for (size_t d = 0; d < pair.empty_shape.size(); ++d) {
                if (pair.empty_shape[d] >= 0) continue;
                if (d == 0) {
                    pair.empty_shape[d] = 1;
                } else {
                    pair.empty_shape[d] = 0;
                    pair.axis = d;
                    ++dynamic;
                }
            }
            if (dynamic != 1)
                throw std::runtime_error(where + "input '" + in.name + "' has the shape " + in.bounds.to_string() +
                                         "; a past of the KV cache has one dynamic dimension besides the batch (the positions)");
            pairs_.push_back(std::move(pair));
        }
        for (size_t o = 0; o < compiled_.outputs().size(); ++o) {
            const std::string& name = compiled_.outputs()[o].name;
            if (name.rfind(kPresent, 0) == 0 && !paired[o])
                throw std::runtime_error(where + "output '" + name + "' has no input '" + kPast +
                                         name.substr(std::string(kPresent).size()) + "' to feed at the next step");
        }
    }

    InferRequest request_;
    std::vector<Pair> pairs_;
    bool fixed_capacity_ = false;
    std::vector<Tensor> cache_;  // by pair: [.., capacity_, ..] of which length_ positions are written
    std::vector<Tensor> empty_;  // by pair: the past of the prompt's step
    size_t capacity_ = 0;
};

}  // namespace

std::unique_ptr<DecoderModel> make_past_present_decoder(std::filesystem::path file, CompiledModel compiled,
                                                        std::optional<size_t> max_length) {
    return std::make_unique<PastPresentDecoder>(std::move(file), std::move(compiled), max_length);
}

}  // namespace mosaic::genai
