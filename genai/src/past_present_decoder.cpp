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

constexpr const char* kPast = "past_key_values.";
constexpr const char* kPresent = "present.";
constexpr size_t kFirstCapacity = 64;

class PastPresentDecoder final : public DecoderModel {
public:
    PastPresentDecoder(std::filesystem::path file, CompiledModel compiled, std::optional<size_t> max_length, bool sliding)
        : DecoderModel(std::move(file), std::move(compiled), max_length),
          context_(compiled_.get_context()), sliding_(sliding) {
        pair_pasts_with_presents();
        reset();
    }

    std::vector<float> step(const std::vector<int64_t>& tokens) override {
        const size_t n = tokens.size();
        if (!sliding_) return grow_by_presents(tokens);
        ensure_capacity(length_ + n);
        // The buffer's last length_ + n positions are the written ones and the new ones.
        std::vector<int64_t> mask(capacity_, 0);
        std::fill(mask.end() - static_cast<long>(length_ + n), mask.end(), 1);
        set_sequence_inputs(request_, tokens, length_, mask);
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
    struct Pair {
        std::string past;
        size_t present_output = 0;
        ElementType type = ElementType::undefined;
        Shape empty_shape;  // the past of an empty cache: batch 1, no positions
        size_t axis = 0;    // the positions' dimension
    };

    Shape shape_at(const Pair& pair, size_t positions) const {
        Shape shape = pair.empty_shape;
        shape[pair.axis] = static_cast<int64_t>(positions);
        return shape;
    }

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
            const std::optional<size_t> axis = cache_positions_axis(pair.empty_shape);
            if (!axis)
                throw std::runtime_error(where + "input '" + in.name + "' has the shape " + in.bounds.to_string() +
                                         "; a past of the KV cache has one dynamic dimension besides the batch (the positions)");
            // Batch one row, no positions.
            pair.axis = *axis;
            if (pair.empty_shape[0] < 0) pair.empty_shape[0] = 1;
            pair.empty_shape[pair.axis] = 0;
            pairs_.push_back(std::move(pair));
        }
        for (size_t o = 0; o < compiled_.outputs().size(); ++o) {
            const std::string& name = compiled_.outputs()[o].name;
            if (name.rfind(kPresent, 0) == 0 && !paired[o])
                throw std::runtime_error(where + "output '" + name + "' has no input '" + kPast +
                                         name.substr(std::string(kPresent).size()) + "' to feed at the next step");
        }
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
