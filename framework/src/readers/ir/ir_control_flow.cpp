#include "readers/ir/ir_control_flow.hpp"

#include "graph/control_flow.hpp"
#include "graph/graph_edit.hpp"
#include "readers/ir/ir.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <optional>
#include <set>

namespace mosaic::ir {

namespace {

// One <input> or <output> of a port map.
struct PortMapEntry {
    int64_t external = -1;  // the layer's port id; -1 for a special port
    uint64_t internal = 0;  // the body layer's id
    std::string purpose;    // "current_iteration", "execution_condition", or empty
    std::optional<int64_t> axis;
    int64_t start = 0, end = -1, stride = 1, part_size = 1;
};

int64_t int_attr(const pugi::xml_node& node, const char* name, int64_t fallback, ControlFlowLayer& layer) {
    const pugi::xml_attribute a = node.attribute(name);
    if (!a) return fallback;
    const std::string text = a.value();
    int64_t v = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size())
        layer.fail(std::string("a port map entry has ") + name + "='" + text + "'; expected an integer");
    return v;
}

std::vector<PortMapEntry> port_map(const pugi::xml_node& map, const char* kind, ControlFlowLayer& layer) {
    std::vector<PortMapEntry> out;
    for (const auto& e : map.children(kind)) {
        PortMapEntry p;
        p.external = int_attr(e, "external_port_id", -1, layer);
        const int64_t internal = int_attr(e, "internal_layer_id", -1, layer);
        if (internal < 0) layer.fail(std::string("a port map <") + kind + "> has no internal_layer_id");
        p.internal = static_cast<uint64_t>(internal);
        p.purpose = e.attribute("purpose").value();
        if (e.attribute("axis")) p.axis = int_attr(e, "axis", 0, layer);
        p.start = int_attr(e, "start", 0, layer);
        p.end = int_attr(e, "end", -1, layer);
        p.stride = int_attr(e, "stride", 1, layer);
        p.part_size = int_attr(e, "part_size", 1, layer);
        out.push_back(p);
    }
    return out;
}

Node* body_node(const Model& body, uint64_t layer_id, const char* type, ControlFlowLayer& layer) {
    Node* n = body.find_node_by_id(node_id_of_layer(layer_id));
    if (!n || n->get_type_name() != type)
        layer.fail("the port map names body layer " + std::to_string(layer_id) + ", which is not a " + type +
                   " of body '" + body.get_friendly_name() + "'");
    return n;
}

size_t port_index(const std::vector<uint64_t>& ids, int64_t id, const char* kind, ControlFlowLayer& layer) {
    for (size_t i = 0; i < ids.size(); ++i)
        if (static_cast<int64_t>(ids[i]) == id) return i;
    layer.fail(std::string("the port map names ") + kind + " port " + std::to_string(id) + ", which the layer does not have");
    return 0;
}

// A Parameter of the body that nothing reads yet.
Node* add_parameter(Model& body, const std::string& name, const ops::PortInfo& port) {
    return body.add_parameter(unique_name(body, name), port.type, port.shape);
}

Node* add_true(Model& model, const std::string& name) {
    return model.add_constant(ElementType::boolean, {}, Buffer::from_vector<uint8_t>({1}), unique_name(model, name));
}

// Puts the body's Parameters and Results in the orders given (a Result may be listed twice: each
// use gets a Result of its own). Every Parameter must be listed.
void reorder_ports(Model& body, const std::vector<Node*>& params, const std::vector<Node*>& results,
                   ControlFlowLayer& layer) {
    body.validate();  // the Parameters added for the node's order have their ports from here
    const std::set<Node*> listed(params.begin(), params.end());
    if (listed.size() != params.size())
        layer.fail("the port map gives one body Parameter two inputs of the layer; each takes one");
    for (Node* p : body.get_parameters())
        if (!listed.count(p))
            layer.fail("body Parameter '" + p->get_friendly_name() + "' takes no input of the layer (no port map entry)");
    for (Node* p : params) {
        const std::string name = p->get_friendly_name();
        Node* fresh = add_parameter(body, name + "/in_order", {p->output_type(0), p->output_shape(0)});
        fresh->attrs() = p->attrs();
        fresh->get_rt_info() = p->get_rt_info();
        if (!p->output_names(0).empty()) fresh->set_output_names(0, p->output_names(0));
        replace_uses(body, p->output(0), fresh->output(0));
        body.remove_node(p);
        fresh->set_friendly_name(name);
    }
    // Every Result goes: those listed come back in order, any other is not an output of the node.
    const std::vector<Node*> old = body.get_results();
    for (Node* r : results) {
        body.add_result(r->input(0), unique_name(body, r->get_friendly_name() + "/in_order"));
    }
    for (Node* r : old) body.remove_node(r);
    body.validate();
}

// If-8: then_port_map / else_port_map map input ports 1.. and the output ports to each body.
std::vector<Output> add_if(Model& model, ControlFlowLayer& layer) {
    if (layer.inputs.empty()) layer.fail("an If takes its condition at input port 0");
    const size_t captured = layer.inputs.size() - 1, outputs = layer.output_port_ids.size();
    for (size_t b = 0; b < 2; ++b) {
        Model& body = *layer.bodies[b];
        const pugi::xml_node map = layer.xml.child(b == 0 ? "then_port_map" : "else_port_map");
        std::vector<Node*> params(captured, nullptr), results(outputs, nullptr);
        for (const PortMapEntry& e : port_map(map, "input", layer)) {
            const size_t i = port_index(layer.input_port_ids, e.external, "input", layer);
            if (i == 0) layer.fail("the port map passes the condition (input port 0) into a body");
            params[i - 1] = body_node(body, e.internal, "Parameter", layer);
        }
        for (const PortMapEntry& e : port_map(map, "output", layer))
            results[port_index(layer.output_port_ids, e.external, "output", layer)] = body_node(body, e.internal, "Result", layer);
        for (size_t i = 0; i < captured; ++i)
            if (!params[i]) params[i] = add_parameter(body, "unused_input_" + std::to_string(i + 1), layer.input_ports[i + 1]);
        for (size_t o = 0; o < outputs; ++o)
            if (!results[o]) layer.fail("body " + std::to_string(b) + " gives nothing for output port " +
                                        std::to_string(layer.output_port_ids[o]));
        reorder_ports(body, params, results, layer);
    }
    Node* node = layer.node = model.add_control_flow("If", "opset8", layer.inputs, layer.bodies, {}, layer.name);
    std::vector<Output> out;
    for (size_t o = 0; o < outputs; ++o) out.push_back(node->output(o));
    return out;
}

Output add_op(Model& model, const std::string& type, const std::string& version, std::vector<Output> inputs,
              Attributes attrs, const std::string& name) {
    return model.add_node(type, version, std::move(inputs), std::move(attrs), unique_name(model, name))->output(0);
}

Output i64_constant(Model& model, const std::vector<int64_t>& values, const Shape& shape, const std::string& name) {
    return model.add_constant(ElementType::i64, shape, Buffer::from_vector(values), unique_name(model, name))->output(0);
}

// The length of `value` along `axis` as an i64 scalar: a constant when the IR declares it.
Output length_along(Model& model, const Output& value, const Shape& declared, int64_t axis, const std::string& name) {
    if (declared[static_cast<size_t>(axis)] >= 0) return i64_constant(model, {declared[static_cast<size_t>(axis)]}, {}, name);
    const Output shape = add_op(model, "ShapeOf", "opset3", {value}, {{"output_type", "i64"}}, name + "/shape");
    return add_op(model, "Gather", "opset8",
                  {shape, i64_constant(model, {axis}, {}, name + "/axis"), i64_constant(model, {0}, {}, name + "/zero")},
                  {{"batch_dims", "0"}}, name);
}

struct Sliced {
    Node* param;         // the body's slice, replaced by the slice taken from `full`
    size_t input;        // the layer's input it slices
    int64_t axis, stride;
};

struct Concatenated {
    size_t output;  // the layer's output port
    Node* result;   // replaced when the body's ports are put in order
    Shape slice;    // one iteration's value
    int64_t axis, stride;
    bool squeezed = false;  // the body gives the value without its axis of 1
};

// Checks a sliced input's or concatenated output's entry; returns its axis, made non-negative.
int64_t checked_axis(const PortMapEntry& e, size_t rank, const char* what, ControlFlowLayer& layer) {
    const bool forward = e.stride == 1 && e.start == 0 && e.end == -1;
    const bool backward = e.stride == -1 && e.start == -1 && e.end == 0;
    if (e.part_size != 1 || !(forward || backward))
        layer.fail(std::string("a ") + what + " with start " + std::to_string(e.start) + ", end " + std::to_string(e.end) +
                   ", stride " + std::to_string(e.stride) + " and part_size " + std::to_string(e.part_size) +
                   " is not supported; Mosaic takes whole axes one element at a time, forward or backward");
    if (*e.axis < -static_cast<int64_t>(rank) || *e.axis >= static_cast<int64_t>(rank))
        layer.fail(std::string("a ") + what + " has axis " + std::to_string(*e.axis) + " for rank " + std::to_string(rank));
    return *e.axis < 0 ? *e.axis + static_cast<int64_t>(rank) : *e.axis;
}

// Loop-5 and TensorIterator-1 as a Loop node: the body takes (iteration, condition, carried...,
// captured...) and gives (condition, carried..., stacked...).
std::vector<Output> add_loop(Model& model, ControlFlowLayer& layer) {
    const bool is_loop = layer.type == "Loop";
    Model& body = *layer.bodies[0];
    const pugi::xml_node map = layer.xml.child("port_map");
    std::map<Node*, Node*> back_edge;  // body Parameter -> the Result that feeds it next iteration
    for (const auto& e : layer.xml.child("back_edges").children("edge")) {
        Node* from = body_node(body, static_cast<uint64_t>(int_attr(e, "from-layer", -1, layer)), "Result", layer);
        Node* to = body_node(body, static_cast<uint64_t>(int_attr(e, "to-layer", -1, layer)), "Parameter", layer);
        back_edge[to] = from;
    }

    Node* iteration = nullptr;
    Node* condition = nullptr;
    std::vector<Node*> carried_params, carried_results, captured_params;
    std::vector<Output> carried_init, captured_values;
    std::vector<Sliced> sliced;
    for (const PortMapEntry& e : port_map(map, "input", layer)) {
        Node* p = body_node(body, e.internal, "Parameter", layer);
        if (e.purpose == "current_iteration") {
            iteration = p;
            continue;
        }
        const size_t i = port_index(layer.input_port_ids, e.external, "input", layer);
        if (is_loop && i < 2) layer.fail("the port map passes the trip count or the condition into the body");
        if (back_edge.count(p)) {
            carried_params.push_back(p);
            carried_results.push_back(back_edge[p]);
            carried_init.push_back(layer.inputs[i]);
        } else if (e.axis) {
            sliced.push_back({p, i, checked_axis(e, layer.input_ports[i].shape.size(), "sliced input", layer), e.stride});
        } else {
            captured_params.push_back(p);
            captured_values.push_back(layer.inputs[i]);
        }
    }

    std::map<size_t, size_t> last_value;  // output port -> carried value
    std::vector<Concatenated> concatenated;
    for (const PortMapEntry& e : port_map(map, "output", layer)) {
        Node* r = body_node(body, e.internal, "Result", layer);
        if (e.purpose == "execution_condition") {
            condition = r;
            continue;
        }
        const size_t o = port_index(layer.output_port_ids, e.external, "output", layer);
        const Shape& shape = r->input(0).get_partial_shape();
        if (e.axis) {
            concatenated.push_back({o, r, shape, checked_axis(e, shape.size(), "concatenated output", layer), e.stride});
            continue;
        }
        const auto carried = std::find(carried_results.begin(), carried_results.end(), r);
        if (carried != carried_results.end()) {
            last_value[o] = static_cast<size_t>(carried - carried_results.begin());
            continue;
        }
        // The last iteration's value of a body output that is not carried: carried from zeros.
        if (!is_static(shape)) layer.fail("output port " + std::to_string(e.external) + " is a body value of dynamic shape " +
                                          to_string(shape) + " taken at the last iteration; Mosaic needs its shape");
        const ElementType type = r->input(0).get_element_type();
        std::vector<uint8_t> zeros(static_cast<size_t>(shape_size(shape)) * element_size(type), 0);
        const std::string name = unique_name(model, layer.name + "/last_value_" + std::to_string(o));
        carried_init.push_back(model.add_constant(type, shape, Buffer::copy_of(zeros.data(), zeros.size()), name)->output(0));
        carried_params.push_back(add_parameter(body, "last_value_" + std::to_string(o), {type, shape}));
        carried_results.push_back(r);
        last_value[o] = carried_results.size() - 1;
    }

    // Each body Parameter plays one part (the port map may be malformed).
    std::set<Node*> mapped;
    for (const auto* group : {&carried_params, &captured_params})
        for (Node* p : *group)
            if (!mapped.insert(p).second) layer.fail("the port map gives body Parameter '" + p->get_friendly_name() + "' two inputs");
    for (const Sliced& sl : sliced)
        if (!mapped.insert(sl.param).second || sl.param == iteration)
            layer.fail("the port map gives body Parameter '" + sl.param->get_friendly_name() + "' two inputs");
    if (iteration && mapped.count(iteration))
        layer.fail("the port map gives body Parameter '" + iteration->get_friendly_name() + "' two inputs");

    // The iteration number and the condition as Mosaic's body takes them: i64 and boolean scalars.
    Node* number = add_parameter(body, "iteration", {ElementType::i64, {}});
    if (iteration) {
        Output value = number->output(0);
        if (iteration->output_type(0) != ElementType::i64)
            value = add_op(body, "Convert", "opset1", {value}, {{"destination_type", to_string(iteration->output_type(0))}},
                           "iteration/convert");
        if (!iteration->output_shape(0).empty())
            value = add_op(body, "Reshape", "opset1",
                           {value, i64_constant(body, iteration->output_shape(0), {static_cast<int64_t>(iteration->output_shape(0).size())}, "iteration/shape")},
                           {{"special_zero", "false"}}, "iteration/reshape");
        replace_uses(body, iteration->output(0), value);
        body.remove_node(iteration);
    }
    Node* condition_in = add_parameter(body, "condition", {ElementType::boolean, {}});
    Attributes attrs;
    if (!condition) {
        Node* always = add_true(body, "always");
        condition = body.add_result(always->output(0), unique_name(body, always->get_friendly_name() + "/result"));
        attrs.set("ignore_body_condition", true);
    }

    // Sliced inputs: the whole input is captured and sliced in the body by the iteration number.
    std::optional<Output> trip_count;
    for (const Sliced& s : sliced) {
        const ops::PortInfo& port = layer.input_ports[s.input];
        Node* full = add_parameter(body, s.param->get_friendly_name() + "/whole", port);
        captured_params.push_back(full);
        captured_values.push_back(layer.inputs[s.input]);
        const std::string name = s.param->get_friendly_name() + "/slice";
        Output index = number->output(0);
        if (s.stride < 0) {
            const Output length = length_along(body, full->output(0), port.shape, s.axis, name + "/length");
            const Output last = add_op(body, "Subtract", "opset1", {length, i64_constant(body, {1}, {}, name + "/one")},
                                       {{"auto_broadcast", "numpy"}}, name + "/last");
            index = add_op(body, "Subtract", "opset1", {last, index}, {{"auto_broadcast", "numpy"}}, name + "/index");
        }
        const Output start = add_op(body, "Reshape", "opset1", {index, i64_constant(body, {1}, {1}, name + "/one_dim")},
                                    {{"special_zero", "false"}}, name + "/start");
        const Output stop = add_op(body, "Add", "opset1", {start, i64_constant(body, {1}, {1}, name + "/step")},
                                   {{"auto_broadcast", "numpy"}}, name + "/stop");
        const Output slice = add_op(body, "Slice", "opset8",
                                    {full->output(0), start, stop, i64_constant(body, {1}, {1}, name + "/steps"),
                                     i64_constant(body, {s.axis}, {1}, name + "/axes")},
                                    {}, name);
        replace_uses(body, s.param->output(0), slice);
        body.remove_node(s.param);
        if (!trip_count)
            trip_count = length_along(model, layer.inputs[s.input], port.shape, s.axis, layer.name + "/trip_count");
    }

    std::vector<Output> inputs;
    if (is_loop) {
        if (layer.inputs.size() < 2) layer.fail("a Loop takes its trip count and condition at input ports 0 and 1");
        Output m = layer.inputs[0];
        if (layer.input_ports[0].type != ElementType::i64)
            m = add_op(model, "Convert", "opset1", {m}, {{"destination_type", "i64"}}, layer.name + "/trip_count");
        inputs = {m, layer.inputs[1]};
        // OpenVINO: a trip count of -1 does not bound the loop.
        attrs.set("negative_trip_count_unbounded", true);
    } else {
        if (!trip_count) layer.fail("a TensorIterator needs a sliced input (an input port map entry with an axis)");
        inputs = {*trip_count, add_true(model, layer.name + "/always")->output(0)};
    }
    inputs.insert(inputs.end(), carried_init.begin(), carried_init.end());
    inputs.insert(inputs.end(), captured_values.begin(), captured_values.end());

    // A value whose axis is 1 long (the usual row of a sequence) is given without it, so that the
    // stacked values are the concatenation once the iterations' axis is moved there: nothing to
    // reshape, and a Loop that Mosaic writes (rows stacked along axis 0) reads back as it was.
    for (Concatenated& cat : concatenated) {
        if (cat.slice.empty() || cat.slice[static_cast<size_t>(cat.axis)] != 1) continue;
        const std::string name = cat.result->get_friendly_name() + "/row";
        const Output row = add_op(body, "Squeeze", "opset1",
                                  {cat.result->input(0), i64_constant(body, {cat.axis}, {1}, name + "/axis")}, {}, name);
        cat.result = body.add_result(row, unique_name(body, name + "/result"));
        cat.squeezed = true;
    }

    std::vector<Node*> params{number, condition_in};
    params.insert(params.end(), carried_params.begin(), carried_params.end());
    params.insert(params.end(), captured_params.begin(), captured_params.end());
    std::vector<Node*> results{condition};
    results.insert(results.end(), carried_results.begin(), carried_results.end());
    for (const Concatenated& c : concatenated) results.push_back(c.result);
    reorder_ports(body, params, results, layer);

    attrs.set("carried", static_cast<int64_t>(carried_params.size()));
    Node* node = layer.node = model.add_control_flow("Loop", "opset5", inputs, layer.bodies, attrs, layer.name);
    std::vector<Output> out(layer.output_port_ids.size());
    for (const auto& [o, k] : last_value) out[o] = node->output(k);
    for (size_t c = 0; c < concatenated.size(); ++c) {
        // Stacked [n, s...]: the iterations in the axis's order, then merged into that axis.
        const Concatenated& cat = concatenated[c];
        const std::string name = layer.name + "/output_" + std::to_string(cat.output);
        Output stacked = node->output(carried_params.size() + c);
        if (cat.stride < 0)
            stacked = add_op(model, "Slice", "opset8",
                             {stacked, i64_constant(model, {-1}, {1}, name + "/from"),
                              i64_constant(model, {std::numeric_limits<int64_t>::min()}, {1}, name + "/to"),
                              i64_constant(model, {-1}, {1}, name + "/back"), i64_constant(model, {0}, {1}, name + "/axis0")},
                             {}, name + "/reversed");
        const Shape& slice = cat.slice;
        const int64_t rank = static_cast<int64_t>(slice.size());
        if (cat.squeezed) {
            // Stacked [n, s without the axis]: the iterations' axis moved to the axis.
            std::vector<int64_t> perm;
            for (int64_t d = 0; d < rank; ++d) perm.push_back(d < cat.axis ? d + 1 : d == cat.axis ? 0 : d);
            out[cat.output] = cat.axis == 0 ? stacked
                                            : add_op(model, "Transpose", "opset1",
                                                     {stacked, i64_constant(model, perm, {rank}, name + "/perm")}, {}, name);
            continue;
        }
        std::vector<int64_t> perm, target;
        for (int64_t d = 0; d < rank + 1; ++d) perm.push_back(d < cat.axis ? d + 1 : d == cat.axis ? 0 : d);
        for (int64_t d = 0; d < rank; ++d) {
            if (d < cat.axis) target.push_back(0);
            else if (d == cat.axis) target.push_back(-1);
            else if (slice[static_cast<size_t>(d)] < 0)
                layer.fail("concatenated output port " + std::to_string(layer.output_port_ids[cat.output]) +
                           " has a dynamic dimension after its axis; Mosaic needs those static");
            else target.push_back(slice[static_cast<size_t>(d)]);
        }
        const Output moved = add_op(model, "Transpose", "opset1", {stacked, i64_constant(model, perm, {rank + 1}, name + "/perm")},
                                    {}, name + "/moved");
        out[cat.output] = add_op(model, "Reshape", "opset1", {moved, i64_constant(model, target, {rank}, name + "/shape")},
                                 {{"special_zero", "true"}}, name);
    }
    for (size_t o = 0; o < out.size(); ++o)
        if (!out[o].node) layer.fail("output port " + std::to_string(layer.output_port_ids[o]) + " has no port map entry");
    return out;
}

}  // namespace

bool is_control_flow_layer(const std::string& type) {
    return type == "If" || type == "Loop" || type == "TensorIterator";
}

std::vector<std::string> body_elements(const std::string& type) {
    if (type == "If") return {"then_body", "else_body"};
    if (type == "Loop" || type == "TensorIterator") return {"body"};
    return {};
}

std::vector<Output> add_control_flow_layer(Model& model, ControlFlowLayer& layer) {
    return layer.type == "If" ? add_if(model, layer) : add_loop(model, layer);
}

}  // namespace mosaic::ir
