// Decoders whose cache goes out as present.X and comes back in as past_key_values.X (optimum's ONNX,
// and optimum-intel's IR once stateful_to_stateless has run). Where the model was rewritten to
// slide its cache (sliding_kv_cache.hpp), the cache is two buffers per layer of a fixed capacity
// along the positions, in the device's memory where it has its own: a step reads one as past and
// writes the other as present, the next step the other way round, and the attention mask hides
// the positions not yet written. The buffers grow by doubling (a new compilation each time), the
// written positions moved over once, and stay from one prompt to the next. A model the rewrite
// leaves alone (no attention mask or position ids, which say where a step's tokens are) has its
// cache grow by the presents themselves (a new shape per step).
#include "decoder_model.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace mosaic::genai {

namespace {

constexpr size_t kFirstCapacity = 64;

class PastPresentDecoder final : public DecoderModel {
public:
    PastPresentDecoder(std::filesystem::path file, CompiledModel compiled, std::optional<size_t> max_length, bool sliding)
        : DecoderModel(std::move(file), std::move(compiled), max_length),
          context_(compiled_.get_context()), sliding_(sliding) {
        pairs_ = pair_caches(file_, compiled_);
        reset();
    }

    std::vector<float> step(const std::vector<int64_t>& tokens) override {
        const size_t n = tokens.size();
        if (!sliding_) return grow_by_presents(tokens);
        ensure_capacity(length_ + n);
        // The buffer's last length_ + n positions are the written ones and the new ones.
        set_sequence_inputs(request_, tokens, length_, sliding_mask(capacity_, length_ + n));
        for (size_t i = 0; i < pairs_.size(); ++i) {
            request_.set_tensor(pairs_[i].past, buffers_[current_][i]);
            request_.set_tensor(compiled_.outputs()[pairs_[i].present_output], buffers_[1 - current_][i]);
        }
        request_.infer();
        current_ = 1 - current_;
        length_ += n;
        return last_logits(request_);
    }

    // The buffers stay for the next prompt: the mask hides what they hold.
    void reset() override {
        grown_.clear();
        length_ = 0;
    }

private:
    using Pair = CachePair;

    static Shape shape_at(const Pair& pair, size_t positions) { return pair.shape(positions); }

    // Buffers of at least `needed` positions (cache_capacity); the written positions move to the
    // end of the new ones. Nothing changes unless every buffer is made.
    void ensure_capacity(size_t needed) {
        if (needed <= capacity_) return;
        const size_t grown = cache_capacity(needed, capacity_, max_length_);
        std::vector<Tensor> front, back;
        for (size_t i = 0; i < pairs_.size(); ++i) {
            const Pair& pair = pairs_[i];
            front.push_back(context_.create_tensor(pair.type, shape_at(pair, grown)));
            back.push_back(context_.create_tensor(pair.type, shape_at(pair, grown)));
            if (length_ == 0) continue;
            Tensor old(pair.type, shape_at(pair, capacity_)), moved(pair.type, shape_at(pair, grown));
            buffers_[current_][i].copy_to(old);
            copy_positions(old, capacity_ - length_, moved, grown - length_, length_, pair.axis);
            moved.copy_to(front.back());
        }
        buffers_[current_] = std::move(front);
        buffers_[1 - current_] = std::move(back);
        capacity_ = grown;
    }

    // A model without an attention mask or position ids: each step reads all the cache so far and
    // its presents are the next step's pasts.
    std::vector<float> grow_by_presents(const std::vector<int64_t>& tokens) {
        std::vector<int64_t> mask(length_ + tokens.size(), 1);
        set_sequence_inputs(request_, tokens, length_, mask);
        for (size_t i = 0; i < pairs_.size(); ++i)
            request_.set_tensor(pairs_[i].past, length_ > 0 ? grown_[i] : Tensor(pairs_[i].type, pairs_[i].empty_shape));
        request_.infer();
        grown_.resize(pairs_.size());
        for (size_t i = 0; i < pairs_.size(); ++i) {
            const Tensor present = request_.get_output_tensor(pairs_[i].present_output);
            check_present(i, present, length_ + tokens.size());
            grown_[i] = present.clone();  // the next step reads it while the request writes anew
        }
        length_ += tokens.size();
        return last_logits(request_);
    }

    void check_present(size_t i, const Tensor& present, size_t positions) const {
        const Pair& pair = pairs_[i];
        if (present.get_element_type() == pair.type && present.get_shape() == shape_at(pair, positions)) return;
        throw std::runtime_error(file_.string() + ": output '" + compiled_.outputs()[pair.present_output].name + "' is " +
                                 to_string(present.get_element_type()) + " " + to_string(present.get_shape()) +
                                 " after a step that ends with " + std::to_string(positions) +
                                 " positions; a present is its past (" + to_string(pair.type) +
                                 ") with the new positions appended");
    }


    RemoteContext context_;  // the device's memory, where the buffers are
    bool sliding_ = false;
    std::vector<Pair> pairs_;
    // By pair: buffers_[current_] holds the cache ([.., capacity_, ..], its last length_ positions
    // written), the other set takes the next step's presents.
    std::vector<Tensor> buffers_[2];
    size_t current_ = 0;
    size_t capacity_ = 0;
    std::vector<Tensor> grown_;  // by pair, for a model that does not slide: the last presents
};

}  // namespace

size_t cache_capacity(size_t needed, size_t capacity, std::optional<size_t> max_length) {
    size_t grown = std::max(kFirstCapacity, capacity);
    while (grown < needed) grown *= 2;
    return max_length ? std::max(needed, std::min(grown, *max_length)) : grown;
}

std::unique_ptr<DecoderModel> make_past_present_decoder(std::filesystem::path file, CompiledModel compiled,
                                                        std::optional<size_t> max_length, bool sliding) {
    return std::make_unique<PastPresentDecoder>(std::move(file), std::move(compiled), max_length, sliding);
}

}  // namespace mosaic::genai
