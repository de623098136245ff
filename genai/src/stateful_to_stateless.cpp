#include "stateful_to_stateless.hpp"

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace mosaic::genai {

namespace {

std::string variable_of(const Node& n) {
    const std::string* id = n.attrs().find("variable_id");
    return id ? *id : std::string();
}

// Drops what nothing reads any more (a ReadValue's initializer: optimum-intel's zeros of the
// prompt's batch), but never an input, so the model keeps its inputs and their order.
void drop_unread(Model& model) {
    for (bool dropped = true; dropped;) {
        dropped = false;
        std::map<const Node*, size_t> readers;
        for (const Node* n : model.get_ops())
            for (const Output& in : n->inputs()) ++readers[in.node];
        for (Node* n : model.get_ops())
            if (!n->is_parameter() && !n->is_result() && readers[n] == 0 && n->get_type_name() != "Assign") {
                model.remove_node(n);
                dropped = true;
            }
    }
}

}  // namespace

size_t stateful_to_stateless(Model& model) {
    std::map<std::string, Node*> reads, writes;
    for (Node* n : model.get_ops()) {
        const bool read = n->get_type_name() == "ReadValue";
        if (!read && n->get_type_name() != "Assign") continue;
        if (!(read ? reads : writes).emplace(variable_of(*n), n).second)
            throw std::runtime_error("model '" + model.get_friendly_name() + "': variable '" + variable_of(*n) + "' has two " +
                                     n->get_type_name() + " ops; a KV cache variable is read once and assigned once");
    }
    for (const auto& [id, read] : reads)
        if (!writes.count(id))
            throw std::runtime_error("model '" + model.get_friendly_name() + "': variable '" + id +
                                     "' is read (ReadValue) but never assigned; a decoder's KV cache is both");
    for (const auto& [id, write] : writes)
        if (!reads.count(id))
            throw std::runtime_error("model '" + model.get_friendly_name() + "': variable '" + id +
                                     "' is assigned but never read (ReadValue)");
    size_t k = 0;
    for (const auto& [id, read] : reads) {
        const std::string suffix = std::to_string(k++);
        Node* past = model.add_parameter("past_key_values." + suffix, read->output_type(0), read->output_shape(0));
        past->set_output_names(0, {"past_key_values." + suffix});
        for (Node* n : model.get_ops())
            for (size_t i = 0; i < n->input_count(); ++i)
                if (n->input(i).node == read) n->set_input(i, past->output(0));
        Node* write = writes.at(id);
        // The written value is the output; its tensor takes the name the pipeline pairs by.
        const Output written = write->input(0);
        written.node->set_output_names(written.index, {"present." + suffix});
        model.add_result(written, "present." + suffix);
        model.remove_node(write);
    }
    drop_unread(model);
    if (!reads.empty()) model.validate();
    return reads.size();
}

size_t bypass_beam_reorder(Model& model) {
    const auto is_input = [](const Output& o, const char* prefix) {
        return o.node->is_parameter() && Model::input_name(*o.node).rfind(prefix, 0) == 0;
    };
    const auto is_zero = [](const Output& o) {
        if (!o.node->is_constant() || shape_size(o.node->output_shape(o.index)) != 1) return false;
        const ElementType type = o.node->output_type(o.index);
        const void* data = o.node->constant_data()->data();
        if (type == ElementType::i64) return *static_cast<const int64_t*>(data) == 0;
        if (type == ElementType::i32) return *static_cast<const int32_t*>(data) == 0;
        return false;
    };
    size_t bypassed = 0;
    for (Node* gather : model.get_ops()) {
        if (gather->get_type_name() != "Gather" || gather->input_count() < 3 ||
            gather->attrs().get_int("batch_dims", 0) != 0 || !is_input(gather->input(0), "past_key_values.") ||
            !is_input(gather->input(1), "beam_idx") || !is_zero(gather->input(2)))
            continue;
        const Output past = gather->input(0);
        for (Node* n : model.get_ops())
            for (size_t i = 0; i < n->input_count(); ++i)
                if (n->input(i).node == gather) n->set_input(i, past);
        model.remove_node(gather);
        ++bypassed;
    }
    if (bypassed) model.validate();
    return bypassed;
}

}  // namespace mosaic::genai
