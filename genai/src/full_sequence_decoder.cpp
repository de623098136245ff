// A decoder that keeps no cache (exported for `text-generation` without `-with-past`): every step
// runs the whole sequence from position 0.
#include "decoder_model.hpp"

namespace mosaic::genai {

namespace {

class FullSequenceDecoder final : public DecoderModel {
public:
    FullSequenceDecoder(std::filesystem::path file, CompiledModel compiled, std::optional<size_t> max_length)
        : DecoderModel(std::move(file), std::move(compiled), max_length) {}

    std::vector<float> step(const std::vector<int64_t>& tokens) override {
        sequence_.insert(sequence_.end(), tokens.begin(), tokens.end());
        set_sequence_inputs(request_, sequence_, 0, std::vector<int64_t>(sequence_.size(), 1));
        request_.infer();
        length_ = sequence_.size();
        return last_logits(request_);
    }

    void reset() override {
        sequence_.clear();
        length_ = 0;
    }

private:
    std::vector<int64_t> sequence_;
};

}  // namespace

std::unique_ptr<DecoderModel> make_full_sequence_decoder(std::filesystem::path file, CompiledModel compiled,
                                                         std::optional<size_t> max_length) {
    return std::make_unique<FullSequenceDecoder>(std::move(file), std::move(compiled), max_length);
}

}  // namespace mosaic::genai
