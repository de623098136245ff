#include "readers/onnx/onnx_subgraph.hpp"

#include "readers/onnx/onnx_tensor.hpp"
#include "graph/shape_inference.hpp"

#include <mosaic/onnx.hpp>

#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace mosaic::onnx_import {

// Names defined by one (sub)graph, falling back on the scope around it.
class Scope {
public:
    explicit Scope(const Scope* parent) : parent_(parent) {}

    void define(const std::string& name, Output value) { values_[name] = value; }
    // A name that the subgraph defines but could not translate, reported when something reads it.
    void define_unsupported(const std::string& name, std::string why) { unsupported_[name] = std::move(why); }

    const Output* find(const std::string& name) const {
        for (const Scope* s = this; s; s = s->parent_) {
            if (auto it = s->values_.find(name); it != s->values_.end()) return &it->second;
            if (s->unsupported_.count(name)) return nullptr;
        }
        return nullptr;
    }
    const std::string* why_unsupported(const std::string& name) const {
        for (const Scope* s = this; s; s = s->parent_) {
            if (s->values_.count(name)) return nullptr;
            if (auto it = s->unsupported_.find(name); it != s->unsupported_.end()) return &it->second;
        }
        return nullptr;
    }

private:
    const Scope* parent_;
    std::unordered_map<std::string, Output> values_;
    std::unordered_map<std::string, std::string> unsupported_;
};

namespace {

// The scope of the subgraph whose nodes are being translated on this thread, so that a control
// flow node inside it (reached through its translator, which only gets a NodeContext) resolves
// its own subgraphs' outer names there.
thread_local const Scope* current_scope = nullptr;

class CurrentScope {
public:
    explicit CurrentScope(const Scope* s) : saved_(current_scope) { current_scope = s; }
    ~CurrentScope() { current_scope = saved_; }
    CurrentScope(const CurrentScope&) = delete;
    CurrentScope& operator=(const CurrentScope&) = delete;

private:
    const Scope* saved_;
};

void collect_outer_names(const ::onnx::GraphProto& graph, std::vector<std::string>& out, std::set<std::string>& seen) {
    std::unordered_set<std::string> defined;
    for (const auto& in : graph.input()) defined.insert(in.name());
    for (const auto& init : graph.initializer()) defined.insert(init.name());
    for (const auto& init : graph.sparse_initializer()) defined.insert(init.values().name());
    auto note = [&](const std::string& name) {
        if (!name.empty() && !defined.count(name) && seen.insert(name).second) out.push_back(name);
    };
    for (const auto& node : graph.node()) {
        for (const auto& in : node.input()) note(in);
        for (const auto& name : outer_scope_names(node)) note(name);
        for (const auto& o : node.output()) defined.insert(o);
    }
    for (const auto& o : graph.output()) note(o.name());
}

std::string display_name(const ::onnx::NodeProto& node) {
    if (!node.name().empty()) return node.name();
    return node.output_size() > 0 && !node.output(0).empty() ? node.output(0) : node.op_type();
}

}  // namespace

std::vector<std::string> outer_scope_names(const ::onnx::NodeProto& node) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& a : node.attribute()) {
        if (a.has_g()) collect_outer_names(a.g(), out, seen);
        for (const auto& g : a.graphs()) collect_outer_names(g, out, seen);
    }
    return out;
}

SubgraphInliner::SubgraphInliner(NodeContext& ctx) : ctx_(ctx), enclosing_(current_scope) {
    // NodeContext::where() is "ONNX node '<name>' (<op>, opset <n>) in '<path>'"; the subgraph's
    // nodes report the same path.
    const std::string head = "ONNX node '" + ctx.name() + "' (" + ctx.op_type() + ", opset " +
                             std::to_string(ctx.opset()) + ") in '";
    const std::string where = ctx.where();
    model_path_ = where.size() > head.size() ? where.substr(head.size(), where.size() - head.size() - 1) : where;
    if (enclosing_) return;
    // In the main graph, the importer names each Mosaic output after the ONNX tensors it holds;
    // those names are what the subgraphs can read.
    main_graph_ = std::make_unique<Scope>(nullptr);
    const std::vector<std::string> wanted = outer_scope_names(ctx.proto());
    const std::unordered_set<std::string> wanted_set(wanted.begin(), wanted.end());
    for (const auto& node : ctx.builder().model().get_ops())
        for (size_t i = 0; i < node->output_count(); ++i)
            for (const auto& name : node->output_names(i))
                if (wanted_set.count(name)) main_graph_->define(name, node->output(i));
    enclosing_ = main_graph_.get();
}

SubgraphInliner::~SubgraphInliner() = default;

Output SubgraphInliner::outer(const std::string& name) const {
    if (auto it = passed_.find(name); it != passed_.end()) return it->second;
    if (const Output* v = enclosing_->find(name)) return *v;
    if (const std::string* why = enclosing_->why_unsupported(name)) throw onnx::UnsupportedError(*why);
    ctx_.fail("its subgraphs read '" + name + "', which no enclosing scope defines");
}

Outputs SubgraphInliner::inline_graph(const ::onnx::GraphProto& graph, const std::vector<Output>& inputs,
                                      const std::string& label) {
    if (static_cast<size_t>(graph.input_size()) != inputs.size())
        ctx_.fail("subgraph " + label + " declares " + std::to_string(graph.input_size()) + " inputs; the op gives it " +
                  std::to_string(inputs.size()));
    Scope scope(enclosing_);
    for (size_t i = 0; i < inputs.size(); ++i) scope.define(graph.input(static_cast<int>(i)).name(), inputs[i]);
    return translate(ctx_.builder(), scope, graph, label);
}

std::shared_ptr<Model> SubgraphInliner::translate_body(const ::onnx::GraphProto& graph,
                                                       const std::vector<ops::PortInfo>& inputs,
                                                       const std::vector<std::string>& captured, const std::string& label) {
    if (static_cast<size_t>(graph.input_size()) != inputs.size())
        ctx_.fail("subgraph " + label + " declares " + std::to_string(graph.input_size()) + " inputs; the op gives it " +
                  std::to_string(inputs.size()));
    auto body = std::make_shared<Model>(ctx_.name() + "/" + label);
    ShapeInference inference;
    GraphBuilder builder(*body, inference);
    // The body's own root: what it reads from outside is defined here, so nothing resolves
    // around it to a value of another model.
    Scope root(nullptr);
    for (size_t i = 0; i < inputs.size(); ++i) {
        const std::string& name = graph.input(static_cast<int>(i)).name();
        root.define(name, builder.parameter(name, inputs[i].type, inputs[i].shape));
    }
    for (const std::string& name : captured) {
        const Output v = outer(name);
        root.define(name, builder.parameter(name, v.get_element_type(), v.get_partial_shape()));
    }
    std::vector<std::string> reads;
    std::set<std::string> seen;
    collect_outer_names(graph, reads, seen);
    for (const std::string& name : reads) {
        if (root.find(name)) continue;
        const Output v = outer(name);
        const ops::KnownValue* known = ctx_.value(v);
        if (!known) ctx_.fail("subgraph " + label + " reads '" + name + "', which the node does not pass to it");
        root.define(name, builder.constant(known->type, known->shape,
                                           Buffer::copy_of(known->data, static_cast<size_t>(shape_size(known->shape)) *
                                                                            element_size(known->type)),
                                           name));
    }
    Scope scope(&root);
    const Outputs outs = translate(builder, scope, graph, label);
    for (size_t i = 0; i < outs.size(); ++i) builder.result(outs[i], graph.output(static_cast<int>(i)).name());
    return body;
}

Outputs SubgraphInliner::translate(GraphBuilder& builder, Scope& scope, const ::onnx::GraphProto& graph,
                                   const std::string& label) {
    const std::string prefix = ctx_.name() + "/" + label;
    const std::string where = ctx_.where() + ", subgraph " + label;
    if (graph.sparse_initializer_size() > 0) ctx_.unsupported("subgraph " + label + " has sparse initializers");
    for (const auto& init : graph.initializer()) {
        const TensorData t = tensor_data(init, ctx_.base_dir(), where + ", initializer '" + init.name() + "'");
        scope.define(init.name(), builder.constant(t.type, t.shape, t.data, prefix + "/" + init.name()));
    }

    const CurrentScope current(&scope);
    // ONNX requires a subgraph's nodes in topological order, so file order is translation order.
    for (const auto& node : graph.node()) {
        const std::string name = builder.unique_name(prefix + "/" + display_name(node));
        std::vector<Output> node_inputs;
        for (const auto& in : node.input()) {
            if (in.empty()) {
                node_inputs.emplace_back();
                continue;
            }
            if (const Output* v = scope.find(in)) {
                node_inputs.push_back(*v);
                continue;
            }
            if (const std::string* why = scope.why_unsupported(in))
                throw onnx::UnsupportedError(*why);
            ctx_.fail("subgraph " + label + ": node '" + display_name(node) + "' (" + node.op_type() + ") reads '" + in +
                      "', which is defined neither before it in the subgraph nor in an enclosing scope");
        }
        NodeContext node_ctx(builder, node, name, ctx_.opset(), std::move(node_inputs), model_path_,
                             ctx_.base_dir());
        const Translator* translator = find_translator(node.domain(), node.op_type());
        if (!translator) node_ctx.unsupported(untranslated_reason(node.domain(), node.op_type()));
        Outputs outs;
        try {
            outs = (*translator)(node_ctx);
        } catch (const ModelError&) {
            throw;
        } catch (const std::exception& e) {
            node_ctx.fail(e.what());
        }
        for (int i = 0; i < node.output_size(); ++i) {
            const std::string& out = node.output(i);
            if (out.empty()) continue;
            if (static_cast<size_t>(i) < outs.size() && outs[static_cast<size_t>(i)].node)
                scope.define(out, outs[static_cast<size_t>(i)]);
            else
                scope.define_unsupported(out, node_ctx.where() + ": output " + std::to_string(i) + " ('" + out +
                                                  "') is not supported");
        }
    }

    Outputs results;
    for (const auto& out : graph.output()) {
        const Output* v = scope.find(out.name());
        if (!v) {
            if (const std::string* why = scope.why_unsupported(out.name())) throw onnx::UnsupportedError(*why);
            ctx_.fail("subgraph " + label + ": output '" + out.name() + "' is not produced by any node or scope");
        }
        results.push_back(*v);
    }
    return results;
}

}  // namespace mosaic::onnx_import
