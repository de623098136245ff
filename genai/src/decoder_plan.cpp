#include <mosaic/genai/decoder_plan.hpp>

#include "decoder_model.hpp"

#include <stdexcept>

namespace mosaic::genai {

QueryResult plan_decoder(Core& core, const std::filesystem::path& folder, const std::string& device, size_t prompt_length,
                         const AnyMap& given) {
    if (prompt_length == 0) throw std::invalid_argument("plan_decoder: the prompt needs at least one token");
    AnyMap properties = given;
    DecoderSource source = read_decoder(core, folder, properties);
    // The first step: one row of `prompt_length` tokens, one beam; whatever else is dynamic, one.
    // Its past is empty, or, for a sliding cache, the buffers of the prompt's capacity with the
    // mask as long.
    const int64_t length = static_cast<int64_t>(prompt_length);
    const int64_t capacity = source.sliding ? static_cast<int64_t>(cache_capacity(prompt_length, 0, source.max_length)) : 0;
    std::map<std::string, PartialShape> shapes;
    for (Node* p : source.model->get_parameters()) {
        const std::string name = Model::input_name(*p);
        Shape shape = p->output_shape(0);
        const bool sequence = name == "input_ids" || name == "attention_mask" || name == "position_ids";
        const bool past = name.rfind("past_key_values.", 0) == 0;
        bool batch = true;
        for (int64_t& d : shape) {
            if (d >= 0) {
                batch = false;
                continue;
            }
            d = batch ? 1 : name == "attention_mask" && source.sliding ? capacity : sequence ? length : past ? capacity : 1;
            batch = false;
        }
        std::vector<Dimension> dims(shape.begin(), shape.end());
        shapes[p->get_friendly_name()] = PartialShape(std::move(dims));
    }
    source.model->reshape(shapes);
    return core.query_model_details(source.model, device, properties);
}

}  // namespace mosaic::genai
