#include <mosaic/model.hpp>

#include "common/nearest_names.hpp"
#include "ops/op_schema.hpp"
#include "common/port_lookup.hpp"
#include "graph/shape_inference.hpp"

#include <algorithm>
#include <cstring>
#include <queue>
#include <set>
#include <unordered_map>

namespace mosaic {

std::shared_ptr<const Buffer> Buffer::copy_of(const void* data, size_t size) {
    // Not value-initialised: the bytes are written once (a folded constant can be large). new[]
    // aligns for every element type.
    std::shared_ptr<uint8_t[]> bytes(new uint8_t[std::max<size_t>(size, 1)]);
    if (size) std::memcpy(bytes.get(), data, size);
    auto b = std::make_shared<Buffer>();
    b->data_ = bytes.get();
    b->size_ = size;
    b->owner_ = bytes;
    return b;
}

std::shared_ptr<const Buffer> Buffer::view(const void* data, size_t size, std::shared_ptr<const void> owner) {
    auto b = std::make_shared<Buffer>();
    b->data_ = data;
    b->size_ = size;
    b->owner_ = std::move(owner);
    return b;
}

ElementType Output::get_element_type() const { return node->output_type(index); }
const Shape& Output::get_partial_shape() const { return node->output_shape(index); }

const Shape& Output::get_shape() const {
    const Shape& s = get_partial_shape();
    if (!is_static(s))
        throw std::logic_error("output " + std::to_string(index) + " of '" + node->get_friendly_name() +
                               "' has the dynamic shape " + to_string(s) +
                               "; use get_partial_shape(), or Model::reshape to a static shape");
    return s;
}

std::vector<std::string> Output::get_names() const {
    std::vector<std::string> names;
    if (node->is_parameter()) names.push_back(Model::input_name(*node));
    if (node->is_result()) names.push_back(Model::output_name(*node));
    const Node* owner = node->is_result() ? node->input(0).node : node;
    const size_t port = node->is_result() ? node->input(0).index : index;
    if (owner && port < owner->output_count())
        for (const auto& n : owner->output_names(port))
            if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    return names;
}

std::string Output::get_any_name() const {
    auto names = get_names();
    if (names.empty())
        throw std::logic_error("output " + std::to_string(index) + " of '" + node->get_friendly_name() + "' (" +
                               node->type_and_version() + ") has no tensor name");
    return names.front();
}

void Node::set_input(size_t i, Output source) { inputs_.at(i) = source; }

void Node::set_output_names(size_t i, std::vector<std::string> names) {
    if (i >= outputs_.size()) outputs_.resize(i + 1);
    outputs_[i].names = std::move(names);
}

Node* Model::add_node(std::string type, std::string version, std::vector<Output> inputs, Attributes attrs,
                      std::string name, uint64_t id) {
    // next_id_ is above every id in use, so only an id given by the caller (the IR reader's) can
    // collide and needs the search; a search per node made readers that add tens of thousands of
    // nodes (unrolled loops) quadratic: 93% of 20 s for a fuzzed Scan in a Scan.
    if (id == 0) id = next_id_;
    else if (find_node_by_id(id)) throw ModelError("model '" + name_ + "': node id " + std::to_string(id) + " used twice");
    next_id_ = std::max(next_id_, id + 1);
    auto node = std::make_unique<Node>();
    node->type_ = std::move(type);
    node->version_ = std::move(version);
    node->id_ = id;
    node->name_ = name.empty() ? node->type_ + "_" + std::to_string(id) : std::move(name);
    node->inputs_ = std::move(inputs);
    node->attrs_ = std::move(attrs);
    nodes_.push_back(std::move(node));
    return nodes_.back().get();
}

Node* Model::add_parameter(std::string name, ElementType type, const Shape& shape) {
    Attributes a;
    a.set("shape", shape_attr_text(shape));
    a.set("element_type", to_string(type));
    return add_node("Parameter", "opset1", {}, std::move(a), std::move(name));
}

Node* Model::add_constant(ElementType type, const Shape& shape, std::shared_ptr<const Buffer> data, std::string name,
                          uint64_t id) {
    Attributes a;
    a.set("element_type", to_string(type));
    a.set("shape", shape_attr_text(shape));
    Node* n = add_node("Constant", "opset1", {}, std::move(a), std::move(name), id);
    n->constant_ = std::move(data);
    return n;
}

Node* Model::add_result(Output source, std::string name) {
    return add_node("Result", "opset1", {source}, {}, std::move(name));
}

Node* Model::add_control_flow(std::string type, std::string version, std::vector<Output> inputs,
                              std::vector<std::shared_ptr<Model>> bodies, Attributes attrs, std::string name,
                              uint64_t id) {
    Node* n = add_node(std::move(type), std::move(version), std::move(inputs), std::move(attrs), std::move(name), id);
    n->bodies_ = std::move(bodies);
    return n;
}

void Model::remove_node(Node* node) {
    for (const auto& n : nodes_)
        for (const auto& in : n->inputs_)
            if (in.node == node)
                throw ModelError("cannot remove node '" + node->get_friendly_name() + "': '" + n->get_friendly_name() + "' consumes it");
    nodes_.erase(std::remove_if(nodes_.begin(), nodes_.end(), [&](const auto& n) { return n.get() == node; }),
                 nodes_.end());
}

std::vector<Node*> Model::get_parameters() const {
    std::vector<Node*> out;
    for (const auto& n : nodes_)
        if (n->is_parameter()) out.push_back(n.get());
    return out;
}

std::vector<Node*> Model::get_results() const {
    std::vector<Node*> out;
    for (const auto& n : nodes_)
        if (n->is_result()) out.push_back(n.get());
    return out;
}

std::vector<Node*> Model::get_ops() const {
    std::vector<Node*> out;
    out.reserve(nodes_.size());
    for (const auto& n : nodes_) out.push_back(n.get());
    return out;
}

namespace {
std::vector<Output> ports_of(const std::vector<Node*>& nodes) {
    std::vector<Output> out;
    for (Node* n : nodes) out.push_back({n, 0});
    return out;
}

// A model port answers to its tensor names and to its node's friendly name.
std::vector<std::string> names_of(const Output& port) {
    std::vector<std::string> names = port.get_names();
    names.push_back(port.node->get_friendly_name());
    return names;
}
}  // namespace

std::vector<Output> Model::inputs() const { return ports_of(get_parameters()); }
std::vector<Output> Model::outputs() const { return ports_of(get_results()); }
Output Model::input() const { return ports::single(inputs(), "model '" + name_ + "'", "input", names_of); }
Output Model::input(size_t index) const {
    return ports::at(inputs(), index, "model '" + name_ + "'", "input", names_of);
}
Output Model::input(const std::string& name) const {
    return ports::named(inputs(), name, "model '" + name_ + "'", "input", names_of);
}
Output Model::output() const { return ports::single(outputs(), "model '" + name_ + "'", "output", names_of); }
Output Model::output(size_t index) const {
    return ports::at(outputs(), index, "model '" + name_ + "'", "output", names_of);
}
Output Model::output(const std::string& name) const {
    return ports::named(outputs(), name, "model '" + name_ + "'", "output", names_of);
}

Node* Model::get_op(std::string_view name) const {
    if (Node* n = find_node(name)) return n;
    // The nearest names by edit distance: usually a typo.
    std::vector<std::string> names;
    for (const auto& n : nodes_) names.push_back(n->get_friendly_name());
    std::string hint;
    for (const std::string& n : nearest_names(name, names)) hint += (hint.empty() ? "'" : ", '") + n + "'";
    throw ModelError("model '" + name_ + "' has no op named '" + std::string(name) + "'" +
                     (hint.empty() ? std::string() : " (closest: " + hint + ")") +
                     "; friendly names are listed by get_ops() and `mosaic query`");
}

Node* Model::find_node(std::string_view name) const {
    for (const auto& n : nodes_)
        if (n->get_friendly_name() == name) return n.get();
    return nullptr;
}

Node* Model::find_node_by_id(uint64_t id) const {
    for (const auto& n : nodes_)
        if (n->id() == id) return n.get();
    return nullptr;
}

std::vector<Node*> Model::get_ordered_ops() const {
    // Kahn's algorithm over insertion order, so the order is deterministic.
    std::unordered_map<const Node*, size_t> position, pending;
    for (size_t i = 0; i < nodes_.size(); ++i) position[nodes_[i].get()] = i;
    std::vector<std::vector<Node*>> consumers(nodes_.size());
    for (const auto& n : nodes_) {
        for (const auto& in : n->inputs_) {
            auto it = position.find(in.node);
            if (!in.node || it == position.end())
                throw ModelError("node '" + n->get_friendly_name() + "' (" + n->type_and_version() +
                                 ") has an input connected to nothing; connect every input to an output of a node "
                                 "of this model");
            consumers[it->second].push_back(n.get());
        }
        pending[n.get()] = n->inputs_.size();
    }
    std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
    for (size_t i = 0; i < nodes_.size(); ++i)
        if (pending[nodes_[i].get()] == 0) ready.push(i);
    std::vector<Node*> order;
    while (!ready.empty()) {
        Node* n = nodes_[ready.top()].get();
        ready.pop();
        order.push_back(n);
        for (Node* c : consumers[position[n]])
            if (--pending[c] == 0) ready.push(position[c]);
    }
    if (order.size() != nodes_.size()) {
        std::string names;
        for (const auto& n : nodes_)
            if (pending[n.get()] != 0) names += (names.empty() ? "'" : ", '") + n->get_friendly_name() + "'";
        throw ModelError("model '" + name_ + "' has a cycle through " + names +
                         "; a model must be a directed acyclic graph");
    }
    return order;
}

void Model::validate() {
    if (get_results().empty()) throw ModelError("model '" + name_ + "' has no Result; add one for each output");
    std::set<std::string> names;
    for (const auto& n : nodes_)
        if (!names.insert(n->get_friendly_name()).second)
            throw ModelError("model '" + name_ + "': two nodes are named '" + n->get_friendly_name() +
                             "'; friendly names must be unique");
    ShapeInference inference;
    for (Node* node : get_ordered_ops()) inference.apply(*node);
}

void Model::reshape(const std::map<std::string, PartialShape>& shapes) {
    for (const auto& [name, shape] : shapes) {
        Node* param = nullptr;
        for (Node* p : get_parameters()) {
            const auto& tn = p->output_count() ? p->output_names(0) : std::vector<std::string>{};
            if (p->get_friendly_name() == name || std::find(tn.begin(), tn.end(), name) != tn.end()) param = p;
        }
        if (!param) {
            std::string known;
            for (Node* p : get_parameters()) known += (known.empty() ? "" : ", ") + input_name(*p);
            throw ModelError("reshape: model '" + name_ + "' has no input named '" + name + "' (inputs: " + known + ")");
        }
        param->attrs().set("shape", shape.to_attribute());
    }
    validate();
}

PartialShape Model::input_partial_shape(const Node& parameter) {
    const std::string* text = parameter.attrs().find("shape");
    std::optional<PartialShape> declared = text ? PartialShape::parse(*text) : std::nullopt;
    // The attribute was checked when the model was validated; the port shape is the fallback.
    return declared ? *declared : PartialShape(parameter.output_shape(0));
}

std::string Model::input_name(const Node& parameter) {
    if (parameter.output_count() && !parameter.output_names(0).empty()) return parameter.output_names(0).front();
    return parameter.get_friendly_name();
}

std::string Model::output_name(const Node& result) {
    const Output& src = result.input(0);
    if (src.node && src.index < src.node->output_count() && !src.node->output_names(src.index).empty())
        return src.node->output_names(src.index).front();
    return result.get_friendly_name();
}

std::shared_ptr<Model> Model::clone() const {
    auto copy = std::make_shared<Model>(name_);
    copy->rt_info_ = rt_info_;
    copy->next_id_ = next_id_;
    std::unordered_map<const Node*, Node*> map;
    for (const auto& n : nodes_) {
        auto c = std::make_unique<Node>(*n);
        // Bodies are graphs of their own, which a reshape of the copy re-infers: copied too.
        for (auto& body : c->bodies_)
            if (body) body = body->clone();
        map[n.get()] = c.get();
        copy->nodes_.push_back(std::move(c));
    }
    for (auto& n : copy->nodes_)
        for (auto& in : n->inputs_)
            if (in.node) in.node = map.at(in.node);
    return copy;
}

Output ModelBuilder::op(const std::string& type, std::vector<Output> inputs, Attributes attrs, std::string name,
                        std::string version) {
    if (version.empty()) {
        version = ops::OpRegistry::instance().latest_version(type);
        if (version.empty()) throw ModelError("ModelBuilder: unknown op type '" + type + "'");
    }
    return infer(model_->add_node(type, version, std::move(inputs), std::move(attrs), std::move(name)));
}

ModelBuilder::ModelBuilder(std::string name)
    : model_(std::make_shared<Model>(std::move(name))), inference_(std::make_unique<ShapeInference>()) {}

ModelBuilder::~ModelBuilder() = default;

Output ModelBuilder::infer(Node* node) {
    try {
        inference_->apply(*node);
    } catch (...) {
        model_->remove_node(node);  // keep the builder usable after a rejected op
        throw;
    }
    return node->output(0);
}

std::shared_ptr<Model> ModelBuilder::build() {
    model_->validate();
    return model_;
}

}  // namespace mosaic
