#include <mosaic/model.hpp>

#include "ops/op_schema.hpp"
#include "shape_inference.hpp"

#include <algorithm>
#include <cstring>
#include <queue>
#include <set>
#include <unordered_map>

namespace mosaic {

std::shared_ptr<const Buffer> Buffer::copy_of(const void* data, size_t size) {
    auto bytes = std::make_shared<std::vector<uint8_t>>(size);
    if (size) std::memcpy(bytes->data(), data, size);
    auto b = std::make_shared<Buffer>();
    b->data_ = bytes->data();
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

ElementType Output::type() const { return node->output_type(index); }
const Shape& Output::shape() const { return node->output_shape(index); }

void Node::set_input(size_t i, Output source) { inputs_.at(i) = source; }

void Node::set_output_names(size_t i, std::vector<std::string> names) {
    if (i >= outputs_.size()) outputs_.resize(i + 1);
    outputs_[i].names = std::move(names);
}

Node* Model::add_node(std::string type, std::string version, std::vector<Output> inputs, Attributes attrs,
                      std::string name, uint64_t id) {
    if (id == 0) id = next_id_;
    if (find_node_by_id(id)) throw ModelError("model '" + name_ + "': node id " + std::to_string(id) + " used twice");
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

void Model::remove_node(Node* node) {
    for (const auto& n : nodes_)
        for (const auto& in : n->inputs_)
            if (in.node == node)
                throw ModelError("cannot remove node '" + node->name() + "': '" + n->name() + "' consumes it");
    nodes_.erase(std::remove_if(nodes_.begin(), nodes_.end(), [&](const auto& n) { return n.get() == node; }),
                 nodes_.end());
}

std::vector<Node*> Model::parameters() const {
    std::vector<Node*> out;
    for (const auto& n : nodes_)
        if (n->is_parameter()) out.push_back(n.get());
    return out;
}

std::vector<Node*> Model::results() const {
    std::vector<Node*> out;
    for (const auto& n : nodes_)
        if (n->is_result()) out.push_back(n.get());
    return out;
}

Node* Model::find_node(std::string_view name) const {
    for (const auto& n : nodes_)
        if (n->name() == name) return n.get();
    return nullptr;
}

Node* Model::find_node_by_id(uint64_t id) const {
    for (const auto& n : nodes_)
        if (n->id() == id) return n.get();
    return nullptr;
}

std::vector<Node*> Model::topological_order() const {
    // Kahn's algorithm over insertion order, so the order is deterministic.
    std::unordered_map<const Node*, size_t> position, pending;
    for (size_t i = 0; i < nodes_.size(); ++i) position[nodes_[i].get()] = i;
    std::vector<std::vector<Node*>> consumers(nodes_.size());
    for (const auto& n : nodes_) {
        for (const auto& in : n->inputs_) {
            auto it = position.find(in.node);
            if (!in.node || it == position.end())
                throw ModelError("node '" + n->name() + "' (" + n->type_name() +
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
            if (pending[n.get()] != 0) names += (names.empty() ? "'" : ", '") + n->name() + "'";
        throw ModelError("model '" + name_ + "' has a cycle through " + names +
                         "; a model must be a directed acyclic graph");
    }
    return order;
}

void Model::validate() {
    if (results().empty()) throw ModelError("model '" + name_ + "' has no Result; add one for each output");
    std::set<std::string> names;
    for (const auto& n : nodes_)
        if (!names.insert(n->name()).second)
            throw ModelError("model '" + name_ + "': two nodes are named '" + n->name() +
                             "'; friendly names must be unique");
    ShapeInference inference;
    for (Node* node : topological_order()) inference.apply(*node);
}

void Model::reshape(const std::map<std::string, Shape>& shapes) {
    for (const auto& [name, shape] : shapes) {
        Node* param = nullptr;
        for (Node* p : parameters()) {
            const auto& tn = p->output_count() ? p->output_names(0) : std::vector<std::string>{};
            if (p->name() == name || std::find(tn.begin(), tn.end(), name) != tn.end()) param = p;
        }
        if (!param) {
            std::string known;
            for (Node* p : parameters()) known += (known.empty() ? "" : ", ") + input_name(*p);
            throw ModelError("reshape: model '" + name_ + "' has no input named '" + name + "' (inputs: " + known + ")");
        }
        param->attrs().set("shape", shape_attr_text(shape));
    }
    validate();
}

std::string Model::input_name(const Node& parameter) {
    if (parameter.output_count() && !parameter.output_names(0).empty()) return parameter.output_names(0).front();
    return parameter.name();
}

std::string Model::output_name(const Node& result) {
    const Output& src = result.input(0);
    if (src.node && src.index < src.node->output_count() && !src.node->output_names(src.index).empty())
        return src.node->output_names(src.index).front();
    return result.name();
}

std::shared_ptr<Model> Model::clone() const {
    auto copy = std::make_shared<Model>(name_);
    copy->rt_info_ = rt_info_;
    copy->next_id_ = next_id_;
    std::unordered_map<const Node*, Node*> map;
    for (const auto& n : nodes_) {
        auto c = std::make_unique<Node>(*n);
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
