// Run-time control flow. An If whose condition, or a Loop whose trip count or condition, is known
// only when the model runs is a node that holds its bodies (Node::bodies), models of their own.
// Shape inference checks which of an If's branches hold at the node's input shapes (a branch may
// be valid only for its own condition value, as in models that pick a path by sample rate) and
// gives the outputs their merged shapes. The compiled model is cut at the node (cut_model.hpp),
// the bodies compile on the device, and each inference runs only the branch its condition takes,
// or the Loop's body as many times as its trip count and condition say.
//
// The nodes' inputs and the bodies' ports:
//   If   (cond, captured...)                    then/else (captured...) -> (outputs...)
//   Loop (M, cond, carried..., captured...)     body (iteration, cond, carried..., captured...)
//                                                  -> (cond, carried..., scanned...)
// A Loop's outputs are the final carried values, then each scanned value stacked over the
// iterations (a new first axis); its attribute "carried" counts the carried values, and
// "ignore_body_condition" (true) says that the body's condition output does not stop it (ONNX's
// Loop without a cond input), and "negative_trip_count_unbounded" (true) that a negative trip count
// does not bound it (OpenVINO's Loop).
#pragma once

#include <mosaic/model.hpp>

#include "ops/op_schema.hpp"

#include <memory>
#include <string>
#include <vector>

namespace mosaic {

// Stops a Loop whose trip count and condition never end it (a compile property).
inline constexpr const char* kMaxLoopIterationsKey = "MAX_LOOP_ITERATIONS";
inline constexpr uint64_t kDefaultMaxLoopIterations = 1000000;

// Whether `node` is run by the host through its bodies (an If or a Loop).
bool is_control_flow(const Node& node);

// "then_branch" / "else_branch": how messages and profiling name body `index` of an op of `type`.
std::string body_label(const std::string& type, size_t index);

// A copy of `body` with its Parameters at `inputs` (element type and shape, dynamic dimensions
// allowed), inferred; nullptr with `why` set when the body does not hold there.
std::shared_ptr<Model> body_at(const Model& body, const std::vector<ops::PortInfo>& inputs, std::string& why);

// A Loop's body at `inputs` (body_inputs), each loop-carried value whose shape the body changes made
// dynamic in the dimensions that change, so that the body compiles per shape it meets; `inputs`
// is updated to those shapes. nullptr with `why` set when the body does not hold there, or changes
// a carried value's element type or rank.
std::shared_ptr<Model> loop_body_at(const Model& body, std::vector<ops::PortInfo>& inputs, size_t carried,
                                    std::string& why);

// The types and shapes of the body inputs of an op of `type` whose inputs have `node_inputs` (an
// If's condition is not passed on; a Loop's body takes its iteration number and condition first).
std::vector<ops::PortInfo> body_inputs(const std::string& type, const std::vector<ops::PortInfo>& node_inputs);

// Body `index` of a control-flow op (its type, attributes and bodies) whose inputs have
// `node_inputs`, at the shapes they give: an If's branch through body_at, a Loop's body through
// loop_body_at. nullptr with `why` set when it does not hold there, or was not read (the
// "invalid_body_<i>" attribute). What shape inference, compiling and the query all go through.
std::shared_ptr<Model> body_for(const std::string& type, const Attributes& attrs,
                                const std::vector<std::shared_ptr<Model>>& bodies, size_t index,
                                const std::vector<ops::PortInfo>& node_inputs, std::string& why);
std::shared_ptr<Model> body_for(const Node& node, size_t index, std::string& why);

// The outputs of a control-flow node. An If's are those of the branches that hold at its input
// shapes, merged (a dimension on which they differ is dynamic); a Loop's are its carried values'
// (dynamic where the body changes them) and its scanned values' with a dynamic first axis. Throws
// ModelError naming the node when a condition or trip count is not one value of its type, when no
// body holds, when an If's branches disagree in count, element type or rank, or when a Loop's body
// changes a carried value's element type or rank.
// `condition`: an If's condition where shape inference knows its value (a test of a static
// dimension, as torch.onnx writes around squeeze): then only the branch it takes gives the outputs,
// and the other need not hold, nor agree with it in rank.
std::vector<ops::PortInfo> infer_control_flow(const Node& node, const ops::KnownValue* condition = nullptr);

}  // namespace mosaic
