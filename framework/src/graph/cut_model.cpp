#include "graph/cut_model.hpp"

#include "graph/control_flow.hpp"
#include "graph/graph_edit.hpp"

#include <mosaic/reference/kernels.hpp>

#include <cstring>

namespace mosaic {

namespace {

bool static_outputs(const Node& n) {
    for (size_t o = 0; o < n.output_count(); ++o)
        if (!is_static(n.output_shape(o))) return false;
    return true;
}

bool static_inputs(const Node& n) {
    for (const Output& in : n.inputs())
        if (!is_static(in.get_partial_shape())) return false;
    return true;
}

}  // namespace

std::optional<CutModel> cut_at_data_dependent_op(const Model& model) {
    const Node* op = nullptr;
    for (const Node* n : model.get_ordered_ops())
        if (is_control_flow(*n) || (!n->is_parameter() && !static_outputs(*n) && static_inputs(*n))) {
            op = n;
            break;
        }
    if (!op) return std::nullopt;
    CutModel cut{nullptr, nullptr, op->get_type_name(), op->version(), op->get_friendly_name(), op->attrs(),
                       op->bodies()};

    cut.prefix = model.clone();
    Model& prefix = *cut.prefix;
    for (Node* r : prefix.get_results()) prefix.remove_node(r);
    const Node* at = prefix.find_node(op->get_friendly_name());
    for (size_t i = 0; i < at->input_count(); ++i)
        prefix.add_result(at->input(i), op->get_friendly_name() + "/input" + std::to_string(i));
    remove_unread_ops(prefix);
    prefix.validate();

    cut.suffix = model.clone();
    Model& suffix = *cut.suffix;
    Node* replaced = suffix.find_node(op->get_friendly_name());
    for (size_t o = 0; o < replaced->output_count(); ++o) {
        Node* p = suffix.add_parameter(op->get_friendly_name() + "/output" + std::to_string(o), replaced->output_type(o),
                                       replaced->output_shape(o));
        replace_uses(suffix, replaced->output(o), p->output(0));
    }
    suffix.remove_node(replaced);
    remove_unread_ops(suffix);
    suffix.validate();
    return cut;
}

std::vector<Tensor> run_data_dependent_op(const CutModel& cut, const std::vector<Tensor>& inputs) {
    // The op alone over constants: shape inference gives its output shapes from the values (the
    // builder infers each op as it is added, so no Result is needed).
    ModelBuilder one(cut.name);
    std::vector<Output> args;
    for (size_t i = 0; i < inputs.size(); ++i)
        args.push_back(one.constant(inputs[i].get_element_type(), inputs[i].get_shape(),
                                    Buffer::copy_of(inputs[i].data(), inputs[i].get_byte_size()),
                                    cut.name + "/input" + std::to_string(i)));
    const Node* node = ModelBuilder::node(one.op(cut.type, args, cut.attrs, cut.name, cut.version));

    std::vector<ConstTensorView> in;
    for (const Tensor& t : inputs) in.push_back({t.get_element_type(), t.get_shape(), t.data()});
    std::vector<Tensor> out;
    std::vector<TensorView> views;
    for (size_t o = 0; o < node->output_count(); ++o) {
        // Every input's value is known here, so the schema gives the exact shape; one that cannot
        // (inputs it refuses only once it sees their values) is the op's error, not a crash.
        if (!is_static(node->output_shape(o)))
            throw ModelError(cut.type + " '" + cut.name + "': output " + std::to_string(o) + " has shape " +
                             to_string(node->output_shape(o)) + " even with its inputs' values; check its inputs' shapes");
        out.emplace_back(node->output_type(o), node->output_shape(o));
        views.push_back({out.back().get_element_type(), out.back().get_shape(), out.back().data()});
    }
    reference::run_reference_kernel({cut.type, cut.version, cut.attrs, in, views});
    return out;
}

}  // namespace mosaic
