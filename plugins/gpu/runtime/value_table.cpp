#include "runtime/value_table.hpp"

#include <mosaic/reference/constant_folding.hpp>
#include <mosaic/sdk/status.hpp>

namespace mosaic::gpu_plugin {

bool is_view_op(const std::string& type) { return type == "Reshape" || type == "Squeeze" || type == "Unsqueeze"; }

ValueTable::ValueTable(const sdk::GraphView& graph, bool half_floats) : half_floats_(half_floats) {
    const size_t n = graph.node_count();
    outputs_.resize(n);
    inputs_.resize(n);
    runs_.assign(n, false);
    const std::vector<bool> compile_time = reference::compile_time_nodes(graph);
    for (size_t node = 0; node < n; ++node) add_node(graph, node, compile_time[node]);
}

void ValueTable::add_node(const sdk::GraphView& g, size_t n, bool compile_time) {
    const std::string type = g.type(n);
    for (size_t i = 0; i < g.input_count(n); ++i) {
        const sdk::PortRef src = g.input(n, i);
        const ValueId v = outputs_.at(src.node).at(src.port);
        inputs_[n].push_back(v);
        values_[v].uses.push_back({n, i});
    }
    if (type == "Result") {
        output_names_.push_back(g.node_name(n));
        bind_result(n, inputs_[n].at(0));
        return;
    }
    for (size_t o = 0; o < g.output_count(n); ++o) {
        Value v;
        v.type = g.output_type(n, o);
        v.stored = device_type(v.type);
        v.shape = g.output_shape(n, o);
        v.producer = n;
        if (type == "Constant") {
            size_t bytes = 0;
            v.kind = Value::Kind::constant;
            v.constant = g.constant_data(n, &bytes);
        } else if (type == "Parameter") {
            v.kind = Value::Kind::input;
            v.io_index = graph_inputs_++;
            input_names_.push_back(g.node_name(n));
        }
        outputs_[n].push_back(values_.size());
        values_.push_back(std::move(v));
    }
    if (type == "Constant" || type == "Parameter") return;
    if (is_view_op(type)) {
        // The view shares its source's storage; a view of a constant is a constant over the same bytes.
        Value& view = values_[outputs_[n][0]];
        const ValueId source = storage_of(inputs_[n][0]);
        if (values_[source].is_constant()) {
            view.kind = Value::Kind::constant;
            view.constant = values_[source].constant;
        } else {
            view.alias_of = source;
        }
        return;
    }
    if (compile_time) {
        fold(g, n);
        return;
    }
    runs_[n] = true;
}

void ValueTable::fold(const sdk::GraphView& g, size_t n) {
    std::vector<ConstTensorView> inputs;
    for (ValueId v : inputs_[n]) inputs.push_back({values_[v].type, values_[v].shape, values_[v].constant});
    std::vector<std::unique_ptr<uint8_t[]>> storage;
    try {
        storage = reference::fold_node(g, n, inputs);
    } catch (const std::exception& e) {
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "node '" + g.node_name(n) + "' (" + g.type(n) +
                                                            ") over constants cannot be computed at compile time: " + e.what());
    }
    for (size_t o = 0; o < storage.size(); ++o) {
        Value& v = values_[outputs_[n][o]];
        v.kind = Value::Kind::constant;
        v.constant = storage[o].get();
        folded_.push_back(std::move(storage[o]));
    }
    ++folded_nodes_;
}

void ValueTable::bind_result(size_t result_node, ValueId source) {
    const size_t index = graph_outputs_++;
    Value& v = values_[source];
    // The producer writes the caller's tensor in place when nothing else claims the value.
    if (v.kind == Value::Kind::intermediate && v.alias_of == kNoValue) {
        v.kind = Value::Kind::output;
        v.io_index = index;
    } else {
        result_copies_.push_back({source, index});
    }
}

}  // namespace mosaic::gpu_plugin
