#include "graph/control_flow.hpp"

#include <optional>

namespace mosaic {

namespace {

[[noreturn]] void fail(const Node& node, const std::string& message) {
    throw ModelError("node '" + node.get_friendly_name() + "' (" + node.type_and_version() + "): " + message);
}

}  // namespace

bool is_control_flow(const Node& node) {
    return (node.get_type_name() == "If" || node.get_type_name() == "Loop") && !node.bodies().empty();
}

std::string body_label(const std::string& type, size_t index) {
    if (type == "If") return index == 0 ? "then_branch" : "else_branch";
    return index == 0 ? "body" : "body " + std::to_string(index);
}

std::vector<ops::PortInfo> body_inputs(const std::string& type, const std::vector<ops::PortInfo>& node_inputs) {
    std::vector<ops::PortInfo> inputs;
    size_t first = 1;
    if (type == "Loop") {
        inputs = {{ElementType::i64, {}}, {ElementType::boolean, {}}};
        first = 2;
    }
    for (size_t i = first; i < node_inputs.size(); ++i) inputs.push_back(node_inputs[i]);
    return inputs;
}

std::shared_ptr<Model> body_for(const std::string& type, const Attributes& attrs,
                                const std::vector<std::shared_ptr<Model>>& bodies, size_t index,
                                const std::vector<ops::PortInfo>& node_inputs, std::string& why) {
    if (!bodies.at(index)) {
        const std::string* reason = attrs.find("invalid_body_" + std::to_string(index));
        why = reason ? *reason : "it could not be built when the model was read";
        return nullptr;
    }
    std::vector<ops::PortInfo> inputs = body_inputs(type, node_inputs);
    if (type == "Loop")
        return loop_body_at(*bodies[index], inputs, static_cast<size_t>(attrs.get_int("carried", 0)), why);
    return body_at(*bodies[index], inputs, why);
}

std::shared_ptr<Model> body_for(const Node& node, size_t index, std::string& why) {
    std::vector<ops::PortInfo> inputs;
    for (const Output& in : node.inputs()) inputs.push_back({in.get_element_type(), in.get_partial_shape()});
    return body_for(node.get_type_name(), node.attrs(), node.bodies(), index, inputs, why);
}

std::shared_ptr<Model> body_at(const Model& body, const std::vector<ops::PortInfo>& inputs, std::string& why) {
    const std::vector<Node*> params = body.get_parameters();
    if (params.size() != inputs.size()) {
        why = "it takes " + std::to_string(params.size()) + " inputs, the node gives " + std::to_string(inputs.size());
        return nullptr;
    }
    std::map<std::string, PartialShape> shapes;
    for (size_t i = 0; i < params.size(); ++i) {
        if (params[i]->output_type(0) != inputs[i].type) {
            why = "its input '" + params[i]->get_friendly_name() + "' is " + to_string(params[i]->output_type(0)) +
                  ", the node gives " + to_string(inputs[i].type);
            return nullptr;
        }
        shapes[params[i]->get_friendly_name()] = PartialShape(inputs[i].shape);
    }
    std::shared_ptr<Model> copy = body.clone();
    try {
        copy->reshape(shapes);
    } catch (const std::exception& e) {
        why = e.what();
        return nullptr;
    }
    return copy;
}

namespace {

// Input `index` of `node` must hold one value of `type` (any rank).
void check_one(const Node& node, size_t index, ElementType type, const char* what) {
    const Output& in = node.input(index);
    const Shape& shape = in.get_partial_shape();
    if (in.get_element_type() != type || (is_static(shape) && shape_size(shape) != 1))
        fail(node, std::string("the ") + what + " must be one " + to_string(type) + ", got " +
                       to_string(in.get_element_type()) + " " + to_string(shape));
}

std::vector<ops::PortInfo> infer_loop(const Node& node) {
    if (node.bodies().size() != 1 || !node.bodies()[0]) fail(node, "a Loop holds one body");
    const int64_t carried = node.attrs().get_int("carried", -1);
    if (carried < 0 || node.input_count() < 2 + static_cast<size_t>(carried))
        fail(node, "the attribute 'carried' must count loop-carried inputs after M and cond");
    check_one(node, 0, ElementType::i64, "trip count M");
    check_one(node, 1, ElementType::boolean, "condition");
    std::string why;
    std::shared_ptr<Model> body = body_for(node, 0, why);
    if (!body) fail(node, "the body does not hold at its input shapes: " + why);
    // The carried values leave at the shapes the body takes them (widened where it changes them).
    std::vector<ops::PortInfo> result;
    const std::vector<Output> params = body->inputs(), outs = body->outputs();
    for (size_t k = 0; k < static_cast<size_t>(carried); ++k)
        result.push_back({params[2 + k].get_element_type(), params[2 + k].get_partial_shape()});
    for (size_t s = 1 + static_cast<size_t>(carried); s < outs.size(); ++s) {
        Shape stacked{-1};
        for (int64_t d : outs[s].get_partial_shape()) stacked.push_back(d);
        result.push_back({outs[s].get_element_type(), stacked});
    }
    return result;
}

}  // namespace

std::shared_ptr<Model> loop_body_at(const Model& body, std::vector<ops::PortInfo>& inputs, size_t carried,
                                    std::string& why) {
    // Each pass widens the carried values the body changes; a dimension only ever becomes dynamic,
    // so the passes end (one more than the dimensions that change, at most).
    for (;;) {
        std::shared_ptr<Model> at = body_at(body, inputs, why);
        if (!at) return nullptr;
        const std::vector<Output> outs = at->outputs();
        if (outs.size() < 1 + carried) {
            why = "it gives " + std::to_string(outs.size()) + " outputs; it must give the condition and " +
                  std::to_string(carried) + " loop-carried values";
            return nullptr;
        }
        const Shape& condition = outs[0].get_partial_shape();
        if (outs[0].get_element_type() != ElementType::boolean || (is_static(condition) && shape_size(condition) != 1)) {
            why = "its first output (the condition) must be one boolean, got " +
                  std::string(to_string(outs[0].get_element_type())) + " " + to_string(condition);
            return nullptr;
        }
        bool widened = false;
        for (size_t k = 0; k < carried; ++k) {
            ops::PortInfo& in = inputs[2 + k];
            const Output& out = outs[1 + k];
            if (out.get_element_type() != in.type || out.get_partial_shape().size() != in.shape.size()) {
                why = "loop-carried value " + std::to_string(k) + " enters as " + to_string(in.type) + " " +
                      to_string(in.shape) + " but the body returns " + to_string(out.get_element_type()) + " " +
                      to_string(out.get_partial_shape()) + "; Mosaic needs loop-carried values to keep their type and rank";
                return nullptr;
            }
            for (size_t d = 0; d < in.shape.size(); ++d)
                if (in.shape[d] >= 0 && out.get_partial_shape()[d] != in.shape[d]) {
                    in.shape[d] = -1;
                    widened = true;
                }
        }
        if (!widened) return at;
    }
}

std::vector<ops::PortInfo> infer_control_flow(const Node& node, const ops::KnownValue* condition) {
    if (node.get_type_name() == "Loop") return infer_loop(node);
    if (node.get_type_name() != "If") fail(node, "Mosaic runs If and Loop nodes with bodies only");
    if (node.bodies().size() != 2) fail(node, "an If holds two bodies (then, else), this one " + std::to_string(node.bodies().size()));
    if (node.input_count() < 1) fail(node, "an If takes its condition as input 0");
    check_one(node, 0, ElementType::boolean, "condition");

    std::optional<size_t> taken;
    if (condition && shape_size(condition->shape) == 1) taken = condition->as_ints().at(0) != 0 ? 0 : 1;
    std::vector<ops::PortInfo> merged;
    bool any = false;
    std::string reasons;
    for (size_t b = 0; b < 2; ++b) {
        if (taken && b != *taken) continue;
        std::string why;
        std::shared_ptr<Model> body = body_for(node, b, why);
        if (!body) {
            reasons += (reasons.empty() ? "" : "; ") + body_label(node.get_type_name(), b) + ": " + why;
            continue;
        }
        std::vector<ops::PortInfo> outs;
        for (const Output& o : body->outputs()) outs.push_back({o.get_element_type(), o.get_partial_shape()});
        if (!any) {
            merged = std::move(outs);
            any = true;
            continue;
        }
        if (outs.size() != merged.size())
            fail(node, "the branches give " + std::to_string(merged.size()) + " and " + std::to_string(outs.size()) + " outputs");
        for (size_t i = 0; i < outs.size(); ++i) {
            if (outs[i].type != merged[i].type)
                fail(node, "output " + std::to_string(i) + " is " + to_string(merged[i].type) + " in then_branch but " +
                               to_string(outs[i].type) + " in else_branch; the branches of an If must agree in type");
            if (outs[i].shape.size() != merged[i].shape.size())
                fail(node, "output " + std::to_string(i) + " has rank " + std::to_string(merged[i].shape.size()) +
                               " in then_branch but " + std::to_string(outs[i].shape.size()) +
                               " in else_branch; Mosaic needs the outputs of an If's branches to agree in rank");
            for (size_t d = 0; d < outs[i].shape.size(); ++d)
                if (outs[i].shape[d] != merged[i].shape[d]) merged[i].shape[d] = -1;
        }
    }
    if (!any && taken) fail(node, "the condition, known from the shapes, takes the " + body_label(node.get_type_name(), *taken) +
                                      ", which does not hold at its input shapes (" + reasons + ")");
    if (!any) fail(node, "neither branch holds at its input shapes (" + reasons + ")");
    return merged;
}

}  // namespace mosaic
