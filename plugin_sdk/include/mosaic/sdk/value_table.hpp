// The tensors of a graph a device compiles ("values"): one per node output, each a constant, a graph
// input or output (the caller's tensor, used in place), or an intermediate (a buffer of the device's
// memory plan, sdk/buffer_plan.hpp). What every device builds before its executors, so that every
// device reads the same graph the same way:
//
//   sdk::ValueTable values(graph);                 // or BasicValueTable<MyValue> with the device's fields
//   for (size_t n = 0; n < graph.node_count(); ++n)
//       if (values.runs(n)) build_executor(n, values.input(n, 0), values.output(n, 0), ...);
//   for (const sdk::ResultCopy& c : values.result_copies()) ...  // outputs no executor writes
//
// Constant folding (`fold_constants`, on by default): a node known at compile time
// (reference::compile_time_nodes: an op over constants, ShapeOf of a static shape, and what is
// computed from them) is computed once here with its reference kernel; its outputs become constants
// the table owns, so no kernel runs them per inference and a device needs no kernel for them (a
// transposed weight, a decompression Convert, an exported encoder's shape computation). A Reshape,
// Squeeze or Unsqueeze of a constant is a constant over the same bytes. Folding needs the reference
// kernels: link Mosaic::reference_kernels.
//
// Views (`views_share_storage`): a Reshape, Squeeze or Unsqueeze of a computed tensor either runs
// like any op (a copy, the default) or shares its input's storage (`alias_of`, the value whose
// buffer holds its bytes) and never runs, for a device whose tensors are plain buffers.
//
// A device adds its own fields by deriving its value type from sdk::Value (a memory layout, the
// type it stores a tensor in) and its table from BasicValueTable<ItsValue>.
#pragma once

#include <mosaic/reference/constant_folding.hpp>
#include <mosaic/sdk/graph.hpp>
#include <mosaic/sdk/status.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace mosaic::sdk {

using ValueId = size_t;
constexpr ValueId kNoValue = SIZE_MAX;

struct ValueUse {
    size_t node = 0;  // the consuming node (a Result counts)
    size_t port = 0;  // which of its inputs
};

struct Value {
    enum class Kind { constant, input, output, intermediate };
    Kind kind = Kind::intermediate;
    ElementType type = ElementType::undefined;
    Shape shape;
    const void* constant = nullptr;  // Kind::constant: the host's bytes, or the table's when folded
    size_t io_index = 0;             // Kind::input: Parameter index; Kind::output: Result index
    size_t producer = SIZE_MAX;      // the node that computes it (SIZE_MAX for constants and inputs)
    ValueId alias_of = kNoValue;     // a view sharing storage: the value whose buffer holds its bytes
    std::vector<ValueUse> uses;

    // What a plain row-major tensor of this type and shape takes.
    size_t byte_size() const { return static_cast<size_t>(shape_size(shape)) * element_size(type); }
    bool is_constant() const { return kind == Kind::constant; }
};

// A Result whose tensor no executor writes in place: its value is a constant, a graph input, a
// view, or already written into an earlier output. The device copies it last.
struct ResultCopy {
    ValueId from = kNoValue;
    size_t output = 0;  // the Result's index
};

struct ValueTableOptions {
    bool fold_constants = true;
    bool views_share_storage = false;
    // When a fold fails (a kernel refusing its constant inputs): true throws now, naming the node;
    // false leaves the node to run, for a device whose own kernel then reports it.
    bool fold_errors_throw = false;
    // Nodes left unfolded although known at compile time, by node index: what the device computes
    // inside their consumer (a weight's decompression that its MatMul reads compressed).
    std::vector<bool> unfolded;
};

// Reshape, Squeeze and Unsqueeze: the bytes stay as they are.
inline bool is_view_op(const std::string& type) { return type == "Reshape" || type == "Squeeze" || type == "Unsqueeze"; }

template <class V = Value>
class BasicValueTable {
public:
    explicit BasicValueTable(const GraphView& graph, ValueTableOptions options = {}) : options_(options) {
        const size_t count = graph.node_count();
        outputs_.resize(count);
        inputs_.resize(count);
        runs_.assign(count, false);
        std::vector<bool> compile_time(count, false);
        if (options_.fold_constants) compile_time = reference::compile_time_nodes(graph);
        for (size_t n = 0; n < options_.unfolded.size() && n < count; ++n)
            if (options_.unfolded[n]) compile_time[n] = false;
        // View order is topological (plugin_abi.h), so every input is known when its consumer comes.
        for (size_t n = 0; n < count; ++n) add_node(graph, n, compile_time[n]);
    }

    size_t size() const { return values_.size(); }
    const V& operator[](ValueId id) const { return values_.at(id); }
    ValueId output(size_t node, size_t port) const { return outputs_.at(node).at(port); }
    ValueId input(size_t node, size_t i) const { return inputs_.at(node).at(i); }
    size_t input_count(size_t node) const { return inputs_.at(node).size(); }
    // The value whose storage holds `v`: itself unless it is a view sharing storage.
    ValueId storage_of(ValueId v) const { return values_.at(v).alias_of == kNoValue ? v : values_.at(v).alias_of; }
    // False for Parameter, Constant, Result, folded nodes and views sharing storage: nothing runs them.
    bool runs(size_t node) const { return runs_.at(node); }

    size_t folded_nodes() const { return folded_nodes_; }
    size_t graph_input_count() const { return input_names_.size(); }
    size_t graph_output_count() const { return output_names_.size(); }
    // The Parameter's and the Result's node names, by index (what a device names their copies by).
    const std::string& input_name(size_t index) const { return input_names_.at(index); }
    const std::string& output_name(size_t index) const { return output_names_.at(index); }
    const std::vector<ResultCopy>& result_copies() const { return result_copies_; }

    // For a device that inserts tensors while building its executors (a plain copy of a blocked
    // tensor, a converted one): a new value, and a node reading it instead of what it read.
    ValueId add_value(V value) {
        values_.push_back(std::move(value));
        return values_.size() - 1;
    }
    void rebind_input(size_t node, size_t port, ValueId v) {
        inputs_.at(node).at(port) = v;
        values_.at(v).uses.push_back({node, port});
    }

protected:
    V& value(ValueId id) { return values_.at(id); }

private:
    void add_node(const GraphView& g, size_t n, bool compile_time) {
        const std::string type = g.type(n);
        for (size_t i = 0; i < g.input_count(n); ++i) {
            const PortRef src = g.input(n, i);
            const ValueId v = outputs_.at(src.node).at(src.port);
            inputs_[n].push_back(v);
            values_[v].uses.push_back({n, i});
        }
        if (type == "Result") {
            output_names_.push_back(g.node_name(n));
            bind_result(inputs_[n].at(0));
            return;
        }
        for (size_t o = 0; o < g.output_count(n); ++o) {
            V v;
            v.type = g.output_type(n, o);
            v.shape = g.output_shape(n, o);
            if (type == "Constant") {
                size_t bytes = 0;
                v.kind = Value::Kind::constant;
                v.constant = g.constant_data(n, &bytes);
            } else if (type == "Parameter") {
                v.kind = Value::Kind::input;
                v.io_index = input_names_.size();
                input_names_.push_back(g.node_name(n));
            } else {
                v.producer = n;
            }
            outputs_[n].push_back(values_.size());
            values_.push_back(std::move(v));
        }
        if (type == "Constant" || type == "Parameter") return;
        if (is_view_op(type) && make_view(n)) return;
        if (compile_time && fold(g, n)) return;
        runs_[n] = true;
    }

    // True when node `n` (a view op) needs no executor: a constant over its source's bytes, or an
    // alias of its source's storage.
    bool make_view(size_t n) {
        V& view = values_[outputs_[n].at(0)];
        const ValueId source = storage_of(inputs_[n].at(0));
        if (options_.fold_constants && values_[source].is_constant() && values_[source].type == view.type) {
            view.kind = Value::Kind::constant;
            view.constant = values_[source].constant;
            view.producer = SIZE_MAX;
            return true;
        }
        if (!options_.views_share_storage || values_[source].is_constant()) return false;
        view.alias_of = source;
        return true;
    }

    // Computes node `n` now; false when it must run after all (an input the table could not fold,
    // or a kernel refusing its inputs and `fold_errors_throw` off).
    bool fold(const GraphView& g, size_t n) {
        // ShapeOf reads only its input's static shape; every other op reads its inputs' bytes.
        if (g.type(n) != "ShapeOf")
            for (ValueId v : inputs_[n])
                if (!values_[v].is_constant()) return false;
        std::vector<ConstTensorView> inputs;
        for (ValueId v : inputs_[n]) inputs.push_back({values_[v].type, values_[v].shape, values_[v].constant});
        std::vector<std::unique_ptr<uint8_t[]>> storage;
        try {
            storage = reference::fold_node(g, n, inputs);
        } catch (const std::exception& e) {
            if (!options_.fold_errors_throw) return false;
            throw Error(MOSAIC_ERROR_INVALID_ARGUMENT, "node '" + g.node_name(n) + "' (" + g.type(n) +
                                                           ") over constants cannot be computed at compile time: " + e.what());
        }
        for (size_t o = 0; o < storage.size(); ++o) {
            V& v = values_[outputs_[n][o]];
            v.kind = Value::Kind::constant;
            v.producer = SIZE_MAX;
            v.constant = storage[o].get();
            folded_.push_back(std::move(storage[o]));
        }
        ++folded_nodes_;
        return true;
    }

    void bind_result(ValueId source) {
        const size_t index = output_names_.size() - 1;
        V& v = values_[source];
        // The producer writes the caller's tensor in place when nothing else claims the value.
        if (v.kind == Value::Kind::intermediate && v.alias_of == kNoValue) {
            v.kind = Value::Kind::output;
            v.io_index = index;
        } else {
            result_copies_.push_back({source, index});
        }
    }

    ValueTableOptions options_;
    std::vector<V> values_;
    std::vector<std::vector<ValueId>> outputs_, inputs_;  // per node, per port
    std::vector<bool> runs_;
    std::vector<ResultCopy> result_copies_;
    std::vector<std::string> input_names_, output_names_;
    std::vector<std::unique_ptr<uint8_t[]>> folded_;  // outputs of folded nodes
    size_t folded_nodes_ = 0;
};

using ValueTable = BasicValueTable<Value>;

}  // namespace mosaic::sdk
