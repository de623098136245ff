#include "graph/state.hpp"

#include "graph/graph_edit.hpp"

#include <cstring>
#include <map>

namespace mosaic {

namespace {

const std::string kPrefix = "mosaic.state/";

Tensor constant_tensor(const Node& constant) {
    Tensor t(constant.output_type(0), constant.output_shape(0));
    if (t.get_byte_size()) std::memcpy(t.data(), constant.constant_data()->data(), t.get_byte_size());
    return t;
}

std::string variable_of(const Node& n) {
    const std::string* id = n.attrs().find("variable_id");
    return id ? *id : "";
}

// Same rank, and every dimension equal unless one of them is dynamic.
bool shapes_fit(const Shape& a, const Shape& b) {
    if (a.size() != b.size()) return false;
    for (size_t d = 0; d < a.size(); ++d)
        if (a[d] >= 0 && b[d] >= 0 && a[d] != b[d]) return false;
    return true;
}

// The part of `source` that computes the initializers of the ReadValues named in `reads` (by node
// name), one output each in that order, from the model's inputs.
std::shared_ptr<Model> initial_model(const Model& source, const std::vector<std::pair<std::string, std::string>>& reads) {
    std::shared_ptr<Model> m = source.clone();
    for (Node* r : m->get_results()) m->remove_node(r);
    for (const auto& [id, name] : reads) m->add_result(m->find_node(name)->input(0), kPrefix + id + "/initial");
    remove_unread_ops(*m);  // the Assigns first, then what only they read, the ReadValues among it
    for (const Node* n : m->get_ops())
        if (n->get_type_name() == "ReadValue")
            throw ModelError("model '" + source.get_friendly_name() + "': the initial value of a variable of dynamic "
                             "shape reads variable '" + variable_of(*n) + "'; an initializer may read the model's "
                             "inputs and constants only");
    m->validate();
    return m;
}

}  // namespace

std::optional<StatelessModel> make_stateless(const Model& source) {
    std::map<std::string, Node*> reads, writes;
    for (Node* n : source.get_ops()) {
        const bool read = n->get_type_name() == "ReadValue", write = n->get_type_name() == "Assign";
        if (!read && !write) continue;
        auto& table = read ? reads : writes;
        if (!table.emplace(variable_of(*n), n).second)
            throw ModelError("model '" + source.get_friendly_name() + "': variable '" + variable_of(*n) + "' has two " +
                             n->get_type_name() + " ops; each variable is read once and assigned once");
    }
    if (reads.empty() && writes.empty()) return std::nullopt;
    for (const auto& [id, w] : writes)
        if (!reads.count(id))
            throw ModelError("model '" + source.get_friendly_name() + "': Assign '" + w->get_friendly_name() +
                             "' writes variable '" + id + "', which no ReadValue reads");
    for (const auto& [id, r] : reads) {
        if (!writes.count(id))
            throw ModelError("model '" + source.get_friendly_name() + "': ReadValue '" + r->get_friendly_name() +
                             "' reads variable '" + id + "', which no Assign writes");
        const Node& w = *writes.at(id);
        if (w.output_type(0) != r->output_type(0) || !shapes_fit(w.output_shape(0), r->output_shape(0)))
            throw ModelError("model '" + source.get_friendly_name() + "': variable '" + id + "' is read as " +
                             to_string(r->output_type(0)) + " " + to_string(r->output_shape(0)) + " but Assign '" +
                             w.get_friendly_name() + "' writes " + to_string(w.output_type(0)) + " " +
                             to_string(w.output_shape(0)));
    }

    StatelessModel out;
    out.model = source.clone();
    Model& m = *out.model;
    size_t next_input = m.get_parameters().size(), next_output = m.get_results().size();
    std::vector<std::pair<std::string, std::string>> dynamic_reads;  // (variable, ReadValue) of dynamic shape
    for (const auto& [id, original] : reads) {
        Node* r = m.find_node(original->get_friendly_name());
        Variable v;
        v.id = id;
        v.type = r->output_type(0);
        v.shape = r->output_shape(0);
        Node* state = m.add_parameter(kPrefix + id, v.type, v.shape);
        // Devices that plan by memory count it as state held for the request's life (a KV cache),
        // not as an input that comes and goes (HETERO's PIPELINE_PARALLEL).
        state->get_rt_info()["mosaic_variable"] = id;
        v.state_input = next_input++;
        if (is_static(v.shape)) {
            Output initial;
            if (r->input_count()) {
                initial = r->input(0);
                if (initial.node->is_constant()) v.initial = constant_tensor(*initial.node);
            } else {
                v.initial = Tensor(v.type, v.shape);  // zeros
                initial = m.add_constant(v.type, v.shape, Buffer::copy_of(v.initial.data(), v.initial.get_byte_size()),
                                         kPrefix + id + "/initial")->output(0);
            }
            Node* reset = m.add_parameter(kPrefix + id + "/reset", ElementType::boolean, {});
            v.reset_input = next_input++;
            Node* select = m.add_node("Select", "opset1", {reset->output(0), initial, state->output(0)},
                                      {{"auto_broadcast", "numpy"}}, r->get_friendly_name() + "/value");
            replace_uses(m, r->output(0), select->output(0));
        } else {
            // The schema refuses a dynamic shape without an initializer (graph_ops.cpp).
            v.reset_input = Variable::kNone;
            v.initial_output = dynamic_reads.size();
            dynamic_reads.emplace_back(id, original->get_friendly_name());
            replace_uses(m, r->output(0), state->output(0));
        }
        m.remove_node(r);
        Node* w = m.find_node(writes.at(id)->get_friendly_name());
        const Output written = w->input(0);
        replace_uses(m, w->output(0), written);
        m.remove_node(w);
        m.add_result(written, kPrefix + id + "/out");
        v.state_output = next_output++;
        out.variables.push_back(std::move(v));
    }
    remove_unread_ops(m);  // a dynamic variable's initializer, now read by nothing
    m.validate();
    if (!dynamic_reads.empty()) out.initial_model = initial_model(source, dynamic_reads);
    return out;
}

void Model::make_stateful(const std::map<std::string, std::string>& input_to_output) {
    for (const auto& [in_name, out_name] : input_to_output) {
        Node* param = nullptr;
        Node* result = nullptr;
        try {
            param = input(in_name).node;
            result = output(out_name).node;
        } catch (const std::out_of_range& e) {
            throw ModelError("make_stateful: " + std::string(e.what()));
        }
        const Output written = result->input(0);
        if (written.get_element_type() != param->output_type(0) || written.get_partial_shape() != param->output_shape(0))
            throw ModelError("make_stateful: input '" + in_name + "' is " + to_string(param->output_type(0)) + " " +
                             to_string(param->output_shape(0)) + " but output '" + out_name + "' is " +
                             to_string(written.get_element_type()) + " " + to_string(written.get_partial_shape()));
        if (!is_static(param->output_shape(0)))
            throw ModelError("make_stateful: input '" + in_name + "' has the dynamic shape " +
                             to_string(param->output_shape(0)) + "; a variable needs a static shape (reshape first)");
        const std::string id = Model::input_name(*param);
        Node* read = add_node("ReadValue", "opset6", {},
                              {{"variable_id", id}, {"variable_type", to_string(param->output_type(0))},
                               {"variable_shape", PartialShape(param->output_shape(0)).to_attribute()}},
                              id + "/read");
        replace_uses(*this, param->output(0), read->output(0));
        remove_node(param);
        remove_node(result);
        add_node("Assign", "opset6", {written}, {{"variable_id", id}}, id + "/assign");
    }
    validate();
}

}  // namespace mosaic
