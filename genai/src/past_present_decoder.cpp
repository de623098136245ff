// optimum's ONNX decoders: the cache goes out as present.N.key/value and comes back in as
// past_key_values.N.key/value. Two requests take turns, each reading the presents its partner wrote
// the step before as its pasts: the cache is handed on, never copied by the pipeline, and a request
// never reads a tensor it is writing.
#include "decoder_model.hpp"

#include <stdexcept>

namespace mosaic::genai {

namespace {

constexpr const char* kPast = "past_key_values.";
constexpr const char* kPresent = "present.";

class PastPresentDecoder final : public DecoderModel {
public:
    PastPresentDecoder(std::filesystem::path file, CompiledModel compiled, std::optional<size_t> max_length)
        : DecoderModel(std::move(file), std::move(compiled), max_length),
          requests_{compiled_.create_infer_request(), compiled_.create_infer_request()} {
        pair_pasts_with_presents();
        reset();
    }

    std::vector<float> step(const std::vector<int64_t>& tokens) override {
        InferRequest& request = requests_[turn_];
        set_sequence_inputs(request, tokens);
        for (const Pair& p : pairs_) request.set_tensor(p.past, past_[&p - pairs_.data()]);
        request.infer();
        for (size_t i = 0; i < pairs_.size(); ++i) past_[i] = request.get_output_tensor(pairs_[i].present_output);
        turn_ ^= 1;
        length_ += tokens.size();
        return last_logits(request);
    }

    void reset() override {
        past_.clear();
        for (const Pair& p : pairs_) past_.push_back(Tensor(p.type, p.empty_shape));
        length_ = 0;
        turn_ = 0;
    }

private:
    struct Pair {
        std::string past;
        size_t present_output = 0;
        ElementType type = ElementType::undefined;
        Shape empty_shape;  // the past of an empty cache: batch 1, no positions
    };

    // Every past_key_values.X input takes the present.X output; anything unpaired is an error, for
    // a cache that is fed but never returned (or the reverse) would be silently wrong.
    void pair_pasts_with_presents() {
        const std::string where = file_.string() + ": ";
        std::vector<bool> paired(compiled_.outputs().size(), false);
        for (const PortDesc& in : compiled_.inputs()) {
            if (in.name.rfind(kPast, 0) != 0) continue;
            const std::string present = kPresent + in.name.substr(std::string(kPast).size());
            Pair pair{in.name, 0, in.type, in.shape};
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

    InferRequest requests_[2];
    size_t turn_ = 0;
    std::vector<Pair> pairs_;
    std::vector<Tensor> past_;  // by pair: the cache the next step reads
};

}  // namespace

std::unique_ptr<DecoderModel> make_past_present_decoder(std::filesystem::path file, CompiledModel compiled,
                                                        std::optional<size_t> max_length) {
    return std::make_unique<PastPresentDecoder>(std::move(file), std::move(compiled), max_length);
}

}  // namespace mosaic::genai
