#include "value_table.hpp"

#include <mosaic/reference/constant_folding.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mosaic::cpu_plugin {

namespace {

// Ops that only give their first input another shape: over a constant they are a constant.
bool is_shape_view(const std::string& type) { return type == "Reshape" || type == "Squeeze" || type == "Unsqueeze"; }

}  // namespace

ValueTable::ValueTable(const sdk::GraphView& g) {
    const size_t count = g.node_count();
    outputs_.resize(count);
    inputs_.resize(count);
    runs_.assign(count, false);
    // View order is topological (plugin_abi.h), so every input is known when its consumer comes.
    for (size_t n = 0; n < count; ++n) add_node(g, n);
}

void ValueTable::add_node(const sdk::GraphView& g, size_t n) {
    const std::string type = g.type(n);
    for (size_t i = 0; i < g.input_count(n); ++i) {
        const sdk::PortRef src = g.input(n, i);
        const ValueId v = outputs_.at(src.node).at(src.port);
        inputs_[n].push_back(v);
        values_[v].uses.push_back({n, i});
    }
    if (type == "Result") {
        bind_result(n, inputs_[n].at(0));
        return;
    }
    bool constant_inputs = !inputs_[n].empty();
    for (ValueId v : inputs_[n]) constant_inputs = constant_inputs && values_[v].is_constant();

    for (size_t o = 0; o < g.output_count(n); ++o) {
        Value v;
        v.type = g.output_type(n, o);
        v.shape = g.output_shape(n, o);
        if (type == "Constant") {
            size_t bytes = 0;
            v.kind = Value::Kind::constant;
            v.constant = g.constant_data(n, &bytes);
        } else if (type == "Parameter") {
            v.kind = Value::Kind::input;
            v.io_index = graph_inputs_++;
        } else if (is_shape_view(type) && constant_inputs && v.type == values_[inputs_[n][0]].type) {
            v.kind = Value::Kind::constant;
            v.constant = values_[inputs_[n][0]].constant;
        } else {
            v.producer = n;
            runs_[n] = true;
        }
        outputs_[n].push_back(values_.size());
        values_.push_back(std::move(v));
    }
    if (runs_[n] && fold(g, n)) {
        runs_[n] = false;
        ++folded_nodes_;
    }
}

bool ValueTable::fold(const sdk::GraphView& g, size_t n) {
    const std::string type = g.type(n);
    // Every op of the set is a function of its inputs (none draws random numbers or keeps state).
    if (inputs_[n].empty()) return false;
    bool foldable = true;
    for (ValueId v : inputs_[n]) foldable = foldable && values_[v].is_constant();
    if (type == "ShapeOf") foldable = std::all_of(values_[inputs_[n][0]].shape.begin(), values_[inputs_[n][0]].shape.end(),
                                                  [](int64_t d) { return d >= 0; });
    if (!foldable) return false;
    for (ValueId v : outputs_[n])
        if (values_[v].type == ElementType::undefined ||
            std::any_of(values_[v].shape.begin(), values_[v].shape.end(), [](int64_t d) { return d < 0; }))
            return false;

    std::vector<ConstTensorView> inputs;
    for (ValueId v : inputs_[n]) inputs.push_back({values_[v].type, values_[v].shape, values_[v].constant});
    std::vector<std::unique_ptr<uint8_t[]>> storage;
    try {
        storage = reference::fold_node(g, n, inputs);
    } catch (const std::exception&) {
        return false;  // left to run, where the same error names the node
    }
    for (size_t o = 0; o < outputs_[n].size(); ++o) {
        Value& v = values_[outputs_[n][o]];
        v.kind = Value::Kind::constant;
        v.producer = SIZE_MAX;
        v.constant = storage[o].get();
        folded_.push_back(std::move(storage[o]));
    }
    return true;
}

void ValueTable::set_layout(ValueId v, const dnnl::memory::desc& layout) {
    Value& value = values_.at(v);
    if (value.kind != Value::Kind::intermediate)
        throw std::logic_error("CPU plugin: only an intermediate tensor may have a blocked layout");
    value.layout = layout;
}

ValueId ValueTable::add_plain_copy(ValueId of) {
    Value copy;
    copy.type = values_.at(of).type;
    copy.shape = values_.at(of).shape;
    copy.producer = values_.at(of).producer;
    values_.push_back(std::move(copy));
    return values_.size() - 1;
}

void ValueTable::rebind_input(size_t node, size_t port, ValueId v) {
    inputs_.at(node).at(port) = v;
    values_.at(v).uses.push_back({node, port});
}

void ValueTable::bind_result(size_t result_node, ValueId source) {
    const size_t index = graph_outputs_++;
    Value& v = values_[source];
    if (v.kind == Value::Kind::intermediate) {
        v.kind = Value::Kind::output;
        v.io_index = index;
    } else {
        result_copies_.push_back({source, index});
    }
}

}  // namespace mosaic::cpu_plugin
