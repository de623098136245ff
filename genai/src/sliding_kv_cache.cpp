#include "sliding_kv_cache.hpp"

#include "decoder_model.hpp"
#include "graph_constants.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace mosaic::genai {

namespace {

// data[start:stop] along `axis`, start and stop i64 [1].
Output slice(Model& model, Output data, Output start, Output stop, int64_t axis, const std::string& name) {
    return model
        .add_node("Slice", "opset8",
                  {data, start, stop, i64_constant(model, 1, name + "/step"), i64_constant(model, axis, name + "/axes")}, {},
                  name)
        ->output(0);
}

Node* input_named(const Model& model, const std::string& name) {
    for (Node* p : model.get_parameters())
        if (Model::input_name(*p) == name) return p;
    return nullptr;
}

}  // namespace

bool slide_kv_cache(Model& model) {
    Node* ids = input_named(model, "input_ids");
    if (!ids || !input_named(model, "attention_mask") || !input_named(model, "position_ids") ||
        ids->output_shape(0).size() != 2)
        return false;
    struct Past {
        Node* node;
        int64_t axis;
    };
    std::vector<Past> pasts;
    for (Node* p : model.get_parameters()) {
        if (Model::input_name(*p).rfind("past_key_values.", 0) != 0) continue;
        const std::optional<size_t> axis = cache_positions_axis(p->output_shape(0));
        if (!axis) return false;
        pasts.push_back({p, static_cast<int64_t>(*axis)});
    }
    if (pasts.empty()) return false;
    // The step's token count, input_ids' second dimension.
    const Output ids_shape = model.add_node("ShapeOf", "opset3", {ids->output(0)}, {}, "kv_cache/ids_shape")->output(0);
    const Output appended = slice(model, ids_shape, i64_constant(model, 1, "kv_cache/one"),
                                  i64_constant(model, 2, "kv_cache/two"), 0, "kv_cache/appended");
    const Output end = i64_constant(model, std::numeric_limits<int64_t>::max(), "kv_cache/end");
    for (const Past& past : pasts) {
        const std::string name = Model::input_name(*past.node) + "/kept";
        const Output kept = slice(model, past.node->output(0), appended, end, past.axis, name);
        for (Node* n : model.get_ops()) {
            if (n == kept.node) continue;
            for (size_t i = 0; i < n->input_count(); ++i)
                if (n->input(i).node == past.node) n->set_input(i, kept);
        }
    }
    model.validate();
    return true;
}

}  // namespace mosaic::genai
