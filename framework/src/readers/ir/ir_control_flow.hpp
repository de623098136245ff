// OpenVINO IR's control-flow layers (If-8, Loop-5, TensorIterator-1) as Mosaic's run-time control
// flow (control_flow.hpp). The IR maps each body's Parameters and Results to the layer's ports
// through port maps (and a Loop's carried values through back edges); Mosaic's nodes take them in
// a fixed order. So the bodies are rewritten into that order: ports a body does not use become
// Parameters nothing reads, a TensorIterator's sliced inputs are sliced inside the body by the
// iteration number, an output that is a body value's last iteration becomes a carried value, and
// values concatenated along an axis are the stacked scan outputs reshaped after the node.
#pragma once

#include <mosaic/model.hpp>

#include "ops/op_schema.hpp"

#include <pugixml.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mosaic::ir {

// Whether an IR layer type is control flow, and the elements that hold its bodies.
bool is_control_flow_layer(const std::string& type);
std::vector<std::string> body_elements(const std::string& type);

struct ControlFlowLayer {
    std::string type, name;
    pugi::xml_node xml;                      // the <layer>, for its port maps and back edges
    std::vector<uint64_t> input_port_ids, output_port_ids;
    std::vector<ops::PortInfo> input_ports;  // as the IR declares them
    std::vector<Output> inputs;              // one per input port
    // As read (If: then, else; Loop, TensorIterator: the body); node id = IR layer id + 1.
    std::vector<std::shared_ptr<Model>> bodies;
    std::function<void(const std::string&)> fail;  // throws, naming the layer
    Node* node = nullptr;                           // set by add_control_flow_layer
};

// Adds `layer` to `model` as a control-flow node (layer.node; its id is the model's choice, as the
// ops added around it need ids too) and the ops that give its outputs the layer's form; returns one
// Output per output port. Unsupported forms (a partial slice, a stride other
// than 1 or -1) fail naming the port.
std::vector<Output> add_control_flow_layer(Model& model, ControlFlowLayer& layer);

}  // namespace mosaic::ir
