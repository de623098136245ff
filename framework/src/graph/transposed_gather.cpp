#include "graph/transposed_gather.hpp"

#include "graph/graph_edit.hpp"
#include "ops/op_schema.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace mosaic {

namespace {

// The values of a constant i32/i64 node (the shape inference's conversion), or nothing.
std::optional<std::vector<int64_t>> integers_of(const Node* n) {
    if (!n->is_constant() || !n->constant_data()) return std::nullopt;
    const ElementType t = n->output_type(0);
    if (t != ElementType::i64 && t != ElementType::i32) return std::nullopt;
    return ops::KnownValue{t, n->output_shape(0), n->constant_data()->data(), nullptr}.as_ints();
}

// The constant C of `gather` = Gather(Transpose(C, [1, 0]), idx, axis 0 or -2, batch_dims 0), else null.
Node* transposed_matrix_of(const Node& gather) {
    if (gather.get_type_name() != "Gather" || gather.input_count() != 3) return nullptr;
    if (gather.attrs().get_int("batch_dims", 0) != 0) return nullptr;
    const auto axis = integers_of(gather.input(2).node);
    if (!axis || axis->size() != 1 || ((*axis)[0] != 0 && (*axis)[0] != -2)) return nullptr;
    const Node* transpose = gather.input(0).node;
    if (transpose->get_type_name() != "Transpose" || transpose->input_count() != 2) return nullptr;
    Node* matrix = transpose->input(0).node;
    if (!matrix->is_constant() || matrix->output_shape(0).size() != 2) return nullptr;
    const auto perm = integers_of(transpose->input(1).node);
    if (!perm || *perm != std::vector<int64_t>{1, 0}) return nullptr;
    return matrix;
}

}  // namespace

void gather_through_transposed_constants(Model& model) {
    std::vector<Node*> gathers;
    for (Node* n : model.get_ops())
        if (transposed_matrix_of(*n)) gathers.push_back(n);
    for (Node* gather : gathers) {
        Node* matrix = transposed_matrix_of(*gather);
        Node* transpose = gather->input(0).node;
        const Output indices = gather->input(1);
        const int64_t k = static_cast<int64_t>(indices.get_partial_shape().size());
        const std::string name = gather->get_friendly_name();
        auto i64_constant = [&](const Shape& shape, const std::vector<int64_t>& values, const std::string& suffix) {
            return model.add_constant(ElementType::i64, shape, Buffer::from_vector(values), unique_name(model, name + suffix))
                ->output(0);
        };
        Node* columns = model.add_node("Gather", "opset8", {matrix->output(0), indices, i64_constant({}, {1}, "/axis")},
                                       {{"batch_dims", "0"}}, unique_name(model, name + "/columns"));
        std::vector<int64_t> last(static_cast<size_t>(k + 1));
        for (int64_t i = 0; i < k; ++i) last[static_cast<size_t>(i)] = i + 1;
        Node* moved = model.add_node("Transpose", "opset1", {columns->output(0), i64_constant({k + 1}, last, "/order")}, {},
                                     unique_name(model, name + "/rows"));
        moved->set_output_names(0, gather->output_names(0));
        moved->get_rt_info() = gather->get_rt_info();
        columns->get_rt_info() = gather->get_rt_info();
        replace_uses(model, gather->output(0), moved->output(0));
        model.remove_node(gather);
        moved->set_friendly_name(name);
        if (!has_readers(model, transpose)) model.remove_node(transpose);
    }
    if (!gathers.empty()) model.validate();
}

}  // namespace mosaic
