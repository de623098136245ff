// optimum-intel's stateful IR: the KV cache is the request's state (ReadValue/Assign variables), so
// a step feeds only its new tokens. A model that keeps no state and takes no past (exported for
// `text-generation` without `-with-past`) is run on the whole sequence at every step instead.
#include "decoder_model.hpp"

namespace mosaic::genai {

namespace {

class StatefulDecoder final : public DecoderModel {
public:
    StatefulDecoder(std::filesystem::path file, CompiledModel compiled, std::optional<size_t> max_length)
        : DecoderModel(std::move(file), std::move(compiled), max_length), request_(compiled_.create_infer_request()) {
        has_cache_ = !request_.query_state().empty();
    }

    std::vector<float> step(const std::vector<int64_t>& tokens) override {
        if (has_cache_) {
            set_sequence_inputs(request_, tokens);
        } else {
            // Without a cache the whole sequence is the input, from position 0.
            sequence_.insert(sequence_.end(), tokens.begin(), tokens.end());
            const size_t appended = length_;
            length_ = 0;
            set_sequence_inputs(request_, sequence_);
            length_ = appended;
        }
        request_.infer();
        length_ += tokens.size();
        return last_logits(request_);
    }

    void reset() override {
        request_.reset_state();
        sequence_.clear();
        length_ = 0;
    }

private:
    InferRequest request_;
    bool has_cache_ = false;
    std::vector<int64_t> sequence_;  // without a cache: every token so far
};

}  // namespace

std::unique_ptr<DecoderModel> make_stateful_decoder(std::filesystem::path file, CompiledModel compiled,
                                                    std::optional<size_t> max_length) {
    return std::make_unique<StatefulDecoder>(std::move(file), std::move(compiled), max_length);
}

}  // namespace mosaic::genai
