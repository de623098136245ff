// Translators of ONNX's control flow: If, Loop and Scan. If inlines the branch its condition
// selects when the condition is known when the model is read, and otherwise becomes a run-time If
// that runs only the branch taken (if_at_run_time); Loop is unrolled, inlining its body once per iteration
// while the trip count and the condition outputs are known; Scan is unrolled over its inputs'
// static length, and runs as a run-time Loop over its positions when the length is known only then
// (scan_at_run_time).
#include "readers/onnx/onnx_node_context.hpp"
#include "readers/onnx/onnx_subgraph.hpp"
#include "readers/onnx/onnx_tensor.hpp"

#include <algorithm>
#include <exception>
#include <limits>
#include <optional>
#include <string>

namespace mosaic::onnx_import {

namespace {

// Unrolling stops here (the nodes it writes): past it the model would be dominated by copies of
// the body, and a loop that long is rarely meant to be unrolled.
constexpr int64_t kMaxUnrolledNodes = 1 << 16;
// The nodes unrolling writes besides the body's, which count towards the limit too (a fuzzed model
// whose bodies alone were within it wrote three times as many nodes and took 29 s to read under
// ASan): slicing one position out of an input (a Gather with its index and axis constants) and
// stacking one position's output (an Unsqueeze with its axis constant); a Loop's iteration number.
constexpr int64_t kSliceNodes = 3, kStackNodes = 2, kIterationNodes = 1;

// Charges `nodes` unrolled body nodes to the model being read, refusing `what` past the limit. The
// limit holds for the sum over the whole model, so that loops nested in loops, whose unrollings
// multiply, stay within it too (a Scan in a Scan, each under the limit alone, took 26 s to read
// before it failed; found by fuzzing).
void charge_unrolled(NodeContext& ctx, int64_t nodes, const std::string& what) {
    int64_t& total = ctx.builder().unrolled_nodes();
    if (nodes > kMaxUnrolledNodes - total)
        ctx.unsupported(what + " exceeds Mosaic's limit of " + std::to_string(kMaxUnrolledNodes) +
                        " unrolled nodes (in the whole model: " + std::to_string(total) +
                        " are unrolled already, loops nested in loops counting every inner unrolling)");
    total += nodes;
}

const char* const kBindHint = "; give the inputs it depends on with ReadOptions::input_values";

bool known_bool(NodeContext& ctx, const Output& o, const std::string& what) {
    const ops::KnownValue* v = ctx.value(o);
    if (!v)
        ctx.unsupported(what + " must be known when the model is read (Mosaic has no dynamic control flow)" + kBindHint);
    const std::vector<int64_t> values = v->as_ints();
    if (values.size() != 1) ctx.fail(what + " must hold one value, got shape " + to_string(v->shape));
    return values[0] != 0;
}

const ::onnx::GraphProto& graph_attr(NodeContext& ctx, const char* name) {
    const ::onnx::GraphProto* g = ctx.attr_graph(name);
    if (!g) ctx.fail(std::string("attribute '") + name + "' (a graph) is missing");
    return *g;
}

// Sequences, maps and optionals have no Mosaic counterpart; say so before anything else fails.
void check_tensor_outputs(NodeContext& ctx, const ::onnx::GraphProto& graph, const char* label) {
    for (const auto& out : graph.output()) {
        const auto& t = out.type();
        const char* kind = t.has_sequence_type() ? "a sequence" : t.has_optional_type() ? "an optional"
                           : t.has_map_type()    ? "a map"
                                                 : nullptr;
        if (kind)
            ctx.unsupported(std::string(label) + " outputs '" + out.name() + "', " + kind +
                            "; Mosaic supports tensors only");
    }
}

// Whether a branch only passes values on (Identity and Constant nodes): selecting between two such
// branches costs nothing and is valid for every condition value, so an If of two of them becomes
// Selects; any other If whose condition is known only at run time runs only the branch it takes.
bool passes_values_on(const ::onnx::GraphProto& graph) {
    for (const auto& node : graph.node())
        if (node.op_type() != "Identity" && node.op_type() != "Constant") return false;
    return true;
}

Outputs select_branches(NodeContext& ctx, const Output& condition) {
    Outputs taken, other;
    for (const char* branch : {"then_branch", "else_branch"}) {
        SubgraphInliner inliner(ctx);
        (taken.empty() ? taken : other) = inliner.inline_graph(graph_attr(ctx, branch), {}, branch);
    }
    if (taken.size() != ctx.output_count() || other.size() != ctx.output_count())
        ctx.fail("the branches have " + std::to_string(taken.size()) + " and " + std::to_string(other.size()) +
                 " outputs; the node has " + std::to_string(ctx.output_count()));
    // A [1] condition broadcasts over outputs of rank 1 or more; a scalar output needs it as a scalar.
    std::optional<Output> scalar;
    auto condition_for = [&](const Output& o) {
        if (ctx.rank(condition) <= ctx.rank(o)) return condition;
        if (!scalar) scalar = ctx.op("Reshape", {condition, ctx.const_i64({}, {0})}, {{"special_zero", "false"}});
        return *scalar;
    };
    Outputs out;
    for (size_t i = 0; i < taken.size(); ++i) {
        if (ctx.type(taken[i]) != ctx.type(other[i]))
            ctx.fail("output " + std::to_string(i) + " is " + to_string(ctx.type(taken[i])) + " in then_branch but " +
                     to_string(ctx.type(other[i])) + " in else_branch; the branches of an If must agree in type");
        if (ctx.shape(taken[i]) != ctx.shape(other[i])) return {};
        out.push_back(ctx.op("Select", {condition_for(taken[i]), taken[i], other[i]}, {{"auto_broadcast", "numpy"}}));
    }
    return out;
}

// An If whose condition is known only when the model runs (a sample rate given as an input, say):
// a run-time If node holding each branch as a body (control_flow.hpp), translated at the shapes
// known now. A branch that does not translate here (valid only for the other condition value) is
// kept as the reason it failed, reported if an inference ever takes it.
Outputs if_at_run_time(NodeContext& ctx) {
    const Output& condition = ctx.input(0);
    const Shape& shape = ctx.shape(condition);
    if (ctx.type(condition) != ElementType::boolean || (is_static(shape) && shape_size(shape) != 1))
        ctx.fail("the condition must be one boolean, got " + std::string(to_string(ctx.type(condition))) + " " +
                 to_string(shape));
    for (const char* branch : {"then_branch", "else_branch"})
        if (graph_attr(ctx, branch).input_size() != 0) ctx.fail(std::string(branch) + " declares inputs; If branches take none");
    if (passes_values_on(graph_attr(ctx, "then_branch")) && passes_values_on(graph_attr(ctx, "else_branch")))
        if (Outputs selected = select_branches(ctx, condition); !selected.empty()) return selected;

    SubgraphInliner inliner(ctx);
    // Each body takes every outer value that either branch reads and that is not known now.
    std::vector<std::string> captured;
    std::vector<Output> inputs{condition};
    for (const std::string& name : outer_scope_names(ctx.proto())) {
        const Output v = inliner.outer(name);
        if (ctx.value(v)) continue;
        captured.push_back(name);
        inputs.push_back(v);
    }
    std::vector<std::shared_ptr<Model>> bodies;
    Attributes attrs;
    std::exception_ptr first_error;
    for (const char* branch : {"then_branch", "else_branch"}) {
        try {
            bodies.push_back(inliner.translate_body(graph_attr(ctx, branch), {}, captured, branch));
            continue;
        } catch (const std::exception& e) {
            attrs.set("invalid_body_" + std::to_string(bodies.size()), std::string(e.what()));
            if (!first_error) first_error = std::current_exception();
        }
        bodies.push_back(nullptr);
    }
    if (!bodies[0] && !bodies[1]) std::rethrow_exception(first_error);
    Outputs outs = ctx.control_flow("If", "opset8", std::move(inputs), std::move(bodies), std::move(attrs));
    if (outs.size() != ctx.output_count())
        ctx.fail("the branches have " + std::to_string(outs.size()) + " outputs; the node has " +
                 std::to_string(ctx.output_count()));
    return outs;
}

Outputs if_op(NodeContext& ctx) {
    check_tensor_outputs(ctx, graph_attr(ctx, "then_branch"), "then_branch");
    check_tensor_outputs(ctx, graph_attr(ctx, "else_branch"), "else_branch");
    if (!ctx.value(ctx.input(0))) return if_at_run_time(ctx);
    const bool taken = known_bool(ctx, ctx.input(0), "the condition (input 0)");
    const char* branch = taken ? "then_branch" : "else_branch";
    const ::onnx::GraphProto& graph = graph_attr(ctx, branch);
    if (graph.input_size() != 0) ctx.fail(std::string(branch) + " declares inputs; If branches take none");
    SubgraphInliner inliner(ctx);
    Outputs outs = inliner.inline_graph(graph, {}, branch);
    if (outs.size() != ctx.output_count())
        ctx.fail(std::string(branch) + " has " + std::to_string(outs.size()) + " outputs; the node has " +
                 std::to_string(ctx.output_count()));
    return outs;
}

// An empty [0, dims...] scan output of a Loop or Scan that ran no iterations, from the body output's
// declared type: nothing else tells its element type and shape.
Output empty_scan(NodeContext& ctx, const ::onnx::ValueInfoProto& declared) {
    const std::string what = "scan output '" + declared.name() + "' of a body that runs no iterations";
    if (!declared.type().has_tensor_type() || !declared.type().tensor_type().has_shape())
        ctx.unsupported(what + " needs the body to declare the output's element type and shape");
    const auto& tensor = declared.type().tensor_type();
    Shape shape{0};
    for (const auto& d : tensor.shape().dim()) {
        if (!d.has_dim_value()) ctx.unsupported(what + " needs the body to declare the output's dimensions");
        shape.push_back(d.dim_value());
    }
    return ctx.constant(element_type_of(tensor.elem_type(), ctx.where()), shape, Buffer::copy_of(nullptr, 0));
}

// Scan outputs stack the per-iteration values along a new leading axis.
// The nodes one position of a Scan writes: the body's, slicing each scan input, stacking each scan output.
int64_t scan_position_nodes(const ::onnx::GraphProto& body, size_t scan_inputs, size_t scan_outputs) {
    return std::max(1, body.node_size()) + kSliceNodes * static_cast<int64_t>(scan_inputs) +
           kStackNodes * static_cast<int64_t>(scan_outputs);
}

Output stack(NodeContext& ctx, const std::vector<Output>& values) {
    std::vector<Output> rows;
    for (const Output& v : values) rows.push_back(ctx.op("Unsqueeze", {v, ctx.scalar_i64(0)}));
    if (rows.size() == 1) return rows[0];
    return ctx.op("Concat", rows, {{"axis", "0"}});
}

// Whether the body returns its condition input, or a constant, as its condition output: then every
// iteration's condition is known when the model is read.
bool condition_is_fixed(const ::onnx::GraphProto& body) {
    const std::string& out = body.output(0).name();
    if (out == body.input(1).name()) return true;
    for (const auto& init : body.initializer())
        if (init.name() == out) return true;
    for (const auto& node : body.node())
        for (const auto& o : node.output())
            if (o == out)
                return node.op_type() == "Constant" ||
                       (node.op_type() == "Identity" && node.input_size() == 1 && node.input(0) == body.input(1).name());
    return false;
}

// A Loop whose trip count or condition is known only when the model runs: a run-time Loop node
// holding the body (control_flow.hpp); an absent trip count is the largest i64, an absent
// condition true (the node's MAX_LOOP_ITERATIONS bounds a loop that nothing ends).
// The run-time Loop node over `body` (ONNX's Loop body): `inputs` are the trip count, the condition
// and the carried values; `given` are values the body reads from outside by name besides those of
// the node's own subgraphs (which resolve in the enclosing scopes).
Outputs run_time_loop(NodeContext& ctx, const ::onnx::GraphProto& body, std::vector<Output> inputs,
                      bool ignore_body_condition, const std::vector<std::pair<std::string, Output>>& given = {}) {
    const size_t carried = inputs.size() - 2;
    std::vector<ops::PortInfo> body_ports{{ElementType::i64, {}}, {ElementType::boolean, {}}};
    for (size_t i = 2; i < inputs.size(); ++i) body_ports.push_back({ctx.type(inputs[i]), ctx.shape(inputs[i])});
    SubgraphInliner inliner(ctx);
    std::vector<std::string> captured;
    for (const auto& [name, value] : given) {
        inliner.pass(name, value);
        captured.push_back(name);
        inputs.push_back(value);
    }
    for (const std::string& name : outer_scope_names(ctx.proto())) {
        if (std::find(captured.begin(), captured.end(), name) != captured.end()) continue;
        const Output v = inliner.outer(name);
        if (ctx.value(v)) continue;
        captured.push_back(name);
        inputs.push_back(v);
    }
    std::vector<std::shared_ptr<Model>> bodies{inliner.translate_body(body, body_ports, captured, "body")};
    Attributes attrs;
    attrs.set("carried", static_cast<int64_t>(carried));
    if (ignore_body_condition) attrs.set("ignore_body_condition", true);
    return ctx.control_flow("Loop", "opset5", std::move(inputs), std::move(bodies), std::move(attrs));
}

Outputs loop_at_run_time(NodeContext& ctx, const ::onnx::GraphProto& body, size_t carried) {
    std::vector<Output> inputs{ctx.has_input(0) ? ctx.input(0) : ctx.scalar_i64(std::numeric_limits<int64_t>::max()),
                               ctx.has_input(1) ? ctx.input(1) : ctx.scalar_of(ElementType::boolean, 1)};
    for (size_t i = 0; i < carried; ++i) inputs.push_back(ctx.input(i + 2));
    // ONNX: without a cond input, the body's condition output is ignored.
    return run_time_loop(ctx, body, std::move(inputs), !ctx.has_input(1));
}

// Loop(M, cond, v_initial...) runs body(iteration, cond, v...) -> (cond, v..., scan...) while
// iteration < M (when given) and cond (when given) hold; it returns the final v... and each scan
// output stacked over the iterations. Unrolled when every iteration's trip count and condition are
// known when the model is read and the unrolled nodes stay within the limit; else run-time.
Outputs loop(NodeContext& ctx) {
    const ::onnx::GraphProto& body = graph_attr(ctx, "body");
    check_tensor_outputs(ctx, body, "the body");
    if (ctx.input_count() < 2) ctx.fail("needs inputs M and cond (either may be empty)");
    const size_t carried = ctx.input_count() - 2;
    if (static_cast<size_t>(body.input_size()) != carried + 2)
        ctx.fail("the body declares " + std::to_string(body.input_size()) + " inputs; with " + std::to_string(carried) +
                 " loop-carried values it must declare " + std::to_string(carried + 2));
    if (static_cast<size_t>(body.output_size()) < carried + 1)
        ctx.fail("the body declares " + std::to_string(body.output_size()) + " outputs; it must return the condition and " +
                 std::to_string(carried) + " loop-carried values");
    const size_t scans = static_cast<size_t>(body.output_size()) - carried - 1;

    const bool known_trip_count = !ctx.has_input(0) || ctx.value(ctx.input(0));
    const bool known_condition = !ctx.has_input(1) || (ctx.value(ctx.input(1)) && condition_is_fixed(body));
    if (!known_trip_count || !known_condition) return loop_at_run_time(ctx, body, carried);
    std::optional<int64_t> trip_count;
    if (ctx.has_input(0)) {
        const std::vector<int64_t> m = ctx.const_ints(0, "trip count M");
        if (m.size() != 1) ctx.fail("the trip count M must hold one value, got " + std::to_string(m.size()));
        trip_count = m[0];
    }
    const bool has_cond = ctx.has_input(1);
    if (!trip_count && !has_cond) ctx.unsupported("has neither a trip count nor a condition, so it never ends");
    bool keep_going = !has_cond || known_bool(ctx, ctx.input(1), "the initial condition (input 1)");
    Output cond = has_cond ? ctx.input(1) : ctx.scalar_of(ElementType::boolean, 1);

    std::vector<Output> state;
    for (size_t i = 0; i < carried; ++i) state.push_back(ctx.input(i + 2));
    std::vector<std::vector<Output>> scan_values(scans);
    SubgraphInliner inliner(ctx);
    const int64_t body_nodes = std::max(1, body.node_size());
    const int64_t per_iteration = body_nodes + kIterationNodes + kStackNodes * static_cast<int64_t>(scans);
    // Too long to unroll: run it.
    if (keep_going && (!trip_count || *trip_count > (kMaxUnrolledNodes - ctx.builder().unrolled_nodes()) / per_iteration))
        return loop_at_run_time(ctx, body, carried);
    for (int64_t i = 0; keep_going && (!trip_count || i < *trip_count); ++i) {
        charge_unrolled(ctx, per_iteration,
                        "unrolling more than " + std::to_string(i) + " iterations of a " + std::to_string(body_nodes) +
                            "-node body (" + std::to_string(per_iteration) + " nodes an iteration)");
        std::vector<Output> inputs{ctx.scalar_i64(i), cond};
        inputs.insert(inputs.end(), state.begin(), state.end());
        const Outputs outs = inliner.inline_graph(body, inputs, "body/iteration_" + std::to_string(i));
        cond = outs[0];
        std::copy(outs.begin() + 1, outs.begin() + 1 + static_cast<std::ptrdiff_t>(carried), state.begin());
        for (size_t k = 0; k < scans; ++k) scan_values[k].push_back(outs[1 + carried + k]);
        // Without a cond input the body's condition output is ignored.
        const bool more_allowed = !trip_count || i + 1 < *trip_count;
        if (has_cond && more_allowed)
            keep_going = known_bool(ctx, cond, "the body's condition output after iteration " + std::to_string(i));
    }

    Outputs results = state;
    for (size_t k = 0; k < scans; ++k) {
        const auto& declared = body.output(static_cast<int>(1 + carried + k));
        results.push_back(scan_values[k].empty() ? empty_scan(ctx, declared) : stack(ctx, scan_values[k]));
    }
    return results;
}

// The scan inputs' and outputs' axes and directions (true: last position first).
struct ScanLayout {
    std::vector<int64_t> input_axes, output_axes;
    std::vector<bool> input_reverse, output_reverse;
};

std::vector<bool> flags(NodeContext& ctx, const char* name, size_t count) {
    const std::vector<int64_t> v = ctx.attr_ints(name, std::vector<int64_t>(count, 0));
    if (v.size() != count)
        ctx.fail(std::string("attribute '") + name + "' has " + std::to_string(v.size()) + " values, expected " +
                 std::to_string(count));
    std::vector<bool> out;
    for (int64_t x : v) out.push_back(x != 0);
    return out;
}

int64_t axis_in(NodeContext& ctx, int64_t axis, int64_t rank, const std::string& what) {
    if (axis < -rank || axis >= rank)
        ctx.fail(what + " axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    return axis < 0 ? axis + rank : axis;
}

// Runs the body once per position of the scan inputs: the states thread through, each scan input
// gives the body its slice at that position, and each scan output stacks the body's slices.
Outputs unroll_scan(NodeContext& ctx, SubgraphInliner& inliner, const ::onnx::GraphProto& body,
                    std::vector<Output> states, const std::vector<Output>& scans, const ScanLayout& layout,
                    const std::string& label) {
    int64_t length = -1;
    std::vector<int64_t> axes;
    for (size_t j = 0; j < scans.size(); ++j) {
        const int64_t axis = axis_in(ctx, layout.input_axes[j], ctx.rank(scans[j]), "scan input " + std::to_string(j));
        const int64_t n = ctx.shape(scans[j])[static_cast<size_t>(axis)];
        if (n < 0) ctx.unsupported("scan input " + std::to_string(j) + " has a dynamic length; give its shape");
        if (length >= 0 && n != length)
            ctx.fail("scan inputs differ in length (" + std::to_string(length) + " and " + std::to_string(n) + ")");
        length = n;
        axes.push_back(axis);
    }
    const size_t carried = states.size(), outputs = static_cast<size_t>(body.output_size()) - carried;
    const int64_t per_position = scan_position_nodes(body, scans.size(), outputs);
    const std::string what = "unrolling " + std::to_string(length) + " positions of a " +
                             std::to_string(body.node_size()) + "-node body (" + std::to_string(per_position) +
                             " nodes a position)";
    if (length > kMaxUnrolledNodes / per_position)  // a division: length may be huge
        ctx.unsupported(what + " exceeds Mosaic's limit of " + std::to_string(kMaxUnrolledNodes) + " unrolled nodes");
    charge_unrolled(ctx, length * per_position, what);
    std::vector<std::vector<Output>> slices_out(outputs);
    for (int64_t t = 0; t < length; ++t) {
        std::vector<Output> inputs = states;
        for (size_t j = 0; j < scans.size(); ++j) {
            const int64_t position = layout.input_reverse[j] ? length - 1 - t : t;
            inputs.push_back(ctx.op("Gather", {scans[j], ctx.scalar_i64(position), ctx.scalar_i64(axes[j])},
                                    {{"batch_dims", "0"}}));
        }
        const Outputs outs = inliner.inline_graph(body, inputs, label + "position_" + std::to_string(t));
        std::copy(outs.begin(), outs.begin() + static_cast<std::ptrdiff_t>(carried), states.begin());
        for (size_t k = 0; k < outputs; ++k) slices_out[k].push_back(outs[carried + k]);
    }
    Outputs results = states;
    for (size_t k = 0; k < outputs; ++k) {
        const auto& declared = body.output(static_cast<int>(carried + k));
        std::vector<Output>& slices = slices_out[k];
        if (slices.empty()) {
            if (layout.output_axes[k] != 0) ctx.unsupported("an empty scan output along an axis other than 0");
            results.push_back(empty_scan(ctx, declared));
            continue;
        }
        if (layout.output_reverse[k]) std::reverse(slices.begin(), slices.end());
        const int64_t axis = axis_in(ctx, layout.output_axes[k], ctx.rank(slices[0]) + 1, "scan output " + std::to_string(k));
        std::vector<Output> rows;
        for (const Output& v : slices) rows.push_back(ctx.op("Unsqueeze", {v, ctx.scalar_i64(axis)}));
        results.push_back(rows.size() == 1 ? rows[0] : ctx.op("Concat", rows, {{"axis", std::to_string(axis)}}));
    }
    return results;
}

// An ONNX node `op_type` (Constant: one i64 value) appended to `graph`.
::onnx::NodeProto* add_proto_node(::onnx::GraphProto& graph, const std::string& op_type, std::vector<std::string> inputs,
                                  const std::string& output) {
    ::onnx::NodeProto* n = graph.add_node();
    n->set_op_type(op_type);
    n->set_name(output);
    for (auto& i : inputs) n->add_input(std::move(i));
    n->add_output(output);
    return n;
}

void add_i64_constant(::onnx::GraphProto& graph, const std::string& name, int64_t value) {
    ::onnx::AttributeProto* a = add_proto_node(graph, "Constant", {}, name)->add_attribute();
    a->set_name("value");
    a->set_type(::onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(::onnx::TensorProto::INT64);
    a->mutable_t()->add_int64_data(value);
}

void add_scalar_input(::onnx::GraphProto& graph, const std::string& name, int32_t type) {
    ::onnx::ValueInfoProto* v = graph.add_input();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    v->mutable_type()->mutable_tensor_type()->mutable_shape();
}

// A Scan-9 whose length is known only when the model runs: a run-time Loop over its positions
// (control_flow.hpp) whose body slices each scan input at the position (reading it from outside, as
// ONNX scoping allows) and runs the Scan's body. The Loop stacks each scan output along a new axis
// 0; the output is then reversed and moved to its axis as the Scan's attributes say.
Outputs scan_at_run_time(NodeContext& ctx, const ::onnx::GraphProto& body, const std::vector<Output>& states,
                         const std::vector<Output>& scans, const ScanLayout& layout) {
    const size_t carried = states.size(), outputs = static_cast<size_t>(body.output_size()) - carried;
    const size_t first_scan = ctx.input_count() - scans.size();
    ::onnx::GraphProto loop_body;
    loop_body.set_name(body.name() + "/positions");
    const std::string iteration = "mosaic_scan/iteration", condition = "mosaic_scan/condition";
    add_scalar_input(loop_body, iteration, ::onnx::TensorProto::INT64);
    add_scalar_input(loop_body, condition, ::onnx::TensorProto::BOOL);
    for (size_t i = 0; i < carried; ++i) *loop_body.add_input() = body.input(static_cast<int>(i));
    const int64_t axis0 = axis_in(ctx, layout.input_axes[0], ctx.rank(scans[0]), "scan input 0");
    const Output length = ctx.op("Gather", {ctx.shape_of(scans[0]), ctx.scalar_i64(axis0), ctx.scalar_i64(0)},
                                 {{"batch_dims", "0"}}, "opset8");
    std::vector<std::pair<std::string, Output>> given;
    for (size_t j = 0; j < scans.size(); ++j) {
        const std::string input = ctx.proto().input(static_cast<int>(first_scan + j)), tag = "mosaic_scan/" + std::to_string(j);
        const int64_t axis = axis_in(ctx, layout.input_axes[j], ctx.rank(scans[j]), "scan input " + std::to_string(j));
        Output scanned = scans[j];
        if (j > 0) {
            // Its shape with scan input 0's length on its scan axis: a Reshape that fails, when the
            // model runs, unless the lengths agree (the Loop would read the shorter one past its end).
            const Output shape = ctx.shape_of(scans[j]);
            const int64_t rank = ctx.rank(scans[j]);
            std::vector<Output> dims;
            if (axis > 0) dims.push_back(ctx.op("Slice", {shape, ctx.const_i64({0}), ctx.const_i64({axis}), ctx.const_i64({1}), ctx.const_i64({0})}));
            dims.push_back(ctx.op("Unsqueeze", {length, ctx.scalar_i64(0)}));
            if (axis + 1 < rank)
                dims.push_back(ctx.op("Slice", {shape, ctx.const_i64({axis + 1}), ctx.const_i64({rank}), ctx.const_i64({1}), ctx.const_i64({0})}));
            scanned = ctx.op("Reshape", {scans[j], dims.size() == 1 ? dims[0] : ctx.op("Concat", dims, {{"axis", "0"}})},
                             {{"special_zero", "false"}});
        }
        given.emplace_back(input, scanned);
        add_i64_constant(loop_body, tag + "/axis", axis);
        std::string position = iteration;
        if (layout.input_reverse[j]) {  // length - 1 - iteration
            add_proto_node(loop_body, "Shape", {input}, tag + "/shape");
            add_proto_node(loop_body, "Gather", {tag + "/shape", tag + "/axis"}, tag + "/length");
            add_i64_constant(loop_body, tag + "/one", 1);
            add_proto_node(loop_body, "Sub", {tag + "/length", tag + "/one"}, tag + "/last");
            add_proto_node(loop_body, "Sub", {tag + "/last", iteration}, tag + "/position");
            position = tag + "/position";
        }
        ::onnx::AttributeProto* a =
            add_proto_node(loop_body, "Gather", {input, position}, body.input(static_cast<int>(carried + j)).name())->add_attribute();
        a->set_name("axis");
        a->set_type(::onnx::AttributeProto::INT);
        a->set_i(axis);
    }
    for (const auto& init : body.initializer()) *loop_body.add_initializer() = init;
    for (const auto& node : body.node()) *loop_body.add_node() = node;
    add_proto_node(loop_body, "Identity", {condition}, condition + "_out");
    ::onnx::ValueInfoProto* cond_out = loop_body.add_output();
    cond_out->set_name(condition + "_out");
    cond_out->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::BOOL);
    for (const auto& out : body.output()) *loop_body.add_output() = out;

    std::vector<Output> inputs{length, ctx.scalar_of(ElementType::boolean, 1)};
    inputs.insert(inputs.end(), states.begin(), states.end());
    Outputs results = run_time_loop(ctx, loop_body, std::move(inputs), true, given);
    for (size_t k = 0; k < outputs; ++k) {
        Output& y = results[carried + k];
        if (layout.output_reverse[k])
            y = ctx.op("Slice", {y, ctx.const_i64({-1}), ctx.const_i64({std::numeric_limits<int64_t>::min()}),
                                 ctx.const_i64({-1}), ctx.const_i64({0})});
        const int64_t rank = ctx.rank(y);
        const int64_t axis = axis_in(ctx, layout.output_axes[k], rank, "scan output " + std::to_string(k));
        if (axis == 0) continue;
        std::vector<int64_t> order;
        for (int64_t d = 1; d <= axis; ++d) order.push_back(d);
        order.push_back(0);
        for (int64_t d = axis + 1; d < rank; ++d) order.push_back(d);
        y = ctx.op("Transpose", {y, ctx.const_i64(order)});
    }
    return results;
}

// Scan-8 adds a leading batch axis to every input and output (and optional per-batch sequence
// lengths); Scan-9 drops the batch and lets each scan input and output choose its axis and direction.
Outputs scan(NodeContext& ctx) {
    const ::onnx::GraphProto& body = graph_attr(ctx, "body");
    check_tensor_outputs(ctx, body, "the body");
    const bool batched = ctx.opset() < 9;
    const size_t first = batched ? 1 : 0;
    const int64_t scan_count = ctx.attr_int("num_scan_inputs");
    if (scan_count < 1 || static_cast<size_t>(scan_count) > ctx.input_count() - first)
        ctx.fail("attribute 'num_scan_inputs' (" + std::to_string(scan_count) + ") must be between 1 and the number of inputs");
    const auto m = static_cast<size_t>(scan_count);
    const size_t carried = ctx.input_count() - first - m;
    if (static_cast<size_t>(body.input_size()) != carried + m || static_cast<size_t>(body.output_size()) < carried)
        ctx.fail("the body's inputs and outputs do not match " + std::to_string(carried) + " states and " +
                 std::to_string(m) + " scan inputs");
    const size_t outputs = static_cast<size_t>(body.output_size()) - carried;

    ScanLayout layout;
    if (batched) {
        layout.input_axes.assign(m, 0);
        layout.input_reverse = flags(ctx, "directions", m);
        layout.output_axes.assign(outputs, 0);
        layout.output_reverse.assign(outputs, false);
    } else {
        layout.input_axes = ctx.attr_ints("scan_input_axes", std::vector<int64_t>(m, 0));
        layout.output_axes = ctx.attr_ints("scan_output_axes", std::vector<int64_t>(outputs, 0));
        if (layout.input_axes.size() != m || layout.output_axes.size() != outputs)
            ctx.fail("attributes 'scan_input_axes' and 'scan_output_axes' need one value per scan input and output");
        layout.input_reverse = flags(ctx, "scan_input_directions", m);
        layout.output_reverse = flags(ctx, "scan_output_directions", outputs);
    }

    std::vector<Output> inputs;
    for (size_t i = first; i < ctx.input_count(); ++i) inputs.push_back(ctx.input(i));
    if (!batched) {
        const std::vector<Output> states(inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(carried));
        const std::vector<Output> scans(inputs.begin() + static_cast<std::ptrdiff_t>(carried), inputs.end());
        bool dynamic_length = false;
        for (size_t j = 0; j < scans.size(); ++j) {
            const int64_t axis = axis_in(ctx, layout.input_axes[j], ctx.rank(scans[j]), "scan input " + std::to_string(j));
            dynamic_length |= ctx.shape(scans[j])[static_cast<size_t>(axis)] < 0;
        }
        if (dynamic_length) return scan_at_run_time(ctx, body, states, scans, layout);
    }
    SubgraphInliner inliner(ctx);
    if (!batched) {
        return unroll_scan(ctx, inliner, body, {inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(carried)},
                           {inputs.begin() + static_cast<std::ptrdiff_t>(carried), inputs.end()}, layout, "body/");
    }

    // Every Scan-8 input leads with the batch axis, and a scan input then with the sequence axis;
    // a scalar state (which Scan-9 allows) has neither.
    for (size_t i = 0; i < inputs.size(); ++i) {
        const int64_t needed = i < carried ? 1 : 2;
        if (ctx.rank(inputs[i]) < needed)
            ctx.fail("input " + std::to_string(i + first) + " has shape " + to_string(ctx.shape(inputs[i])) +
                     "; Scan before opset 9 needs " + (i < carried ? "a batch axis on every state" :
                     "a batch and a sequence axis on every scan input") + " (or use Scan-9, which has no batch axis)");
    }
    const int64_t batch = ctx.shape(inputs.at(0))[0];
    if (batch < 0) ctx.unsupported("the batch size must be static; give the inputs' shapes");
    if (ctx.has_input(0)) {
        const int64_t length = ctx.shape(inputs[carried])[1];
        for (int64_t n : ctx.const_ints(0, "sequence_lens"))
            if (n != length)
                ctx.unsupported("sequence_lens shorter than the scan inputs (" + std::to_string(n) + " of " +
                                std::to_string(length) + ") are not supported");
    }
    // Every batch item unrolls the body over every position: the limit holds for the whole node
    // (a fuzzed model of many items, each under the limit, took minutes to read).
    const int64_t positions = inputs.size() > carried ? std::max<int64_t>(1, ctx.shape(inputs[carried])[1]) : 1;
    const int64_t per_position = scan_position_nodes(body, m, outputs);
    // Besides its positions, each item is sliced out of every input and stacked into every output.
    const int64_t item_nodes =
        kSliceNodes * static_cast<int64_t>(inputs.size()) + kStackNodes * static_cast<int64_t>(carried + outputs);
    if (positions > (kMaxUnrolledNodes - item_nodes) / per_position ||
        batch > kMaxUnrolledNodes / (positions * per_position + item_nodes))
        ctx.unsupported("unrolling " + std::to_string(batch) + " batch items of " + std::to_string(positions) +
                        " positions of a " + std::to_string(body.node_size()) + "-node body exceeds Mosaic's limit of " +
                        std::to_string(kMaxUnrolledNodes) + " unrolled nodes");
    std::vector<std::vector<Output>> per_batch(carried + outputs);
    for (int64_t b = 0; b < batch; ++b) {
        charge_unrolled(ctx, item_nodes, "slicing and stacking batch item " + std::to_string(b));
        std::vector<Output> item;
        for (const Output& x : inputs)
            item.push_back(ctx.op("Gather", {x, ctx.scalar_i64(b), ctx.scalar_i64(0)}, {{"batch_dims", "0"}}));
        const Outputs outs =
            unroll_scan(ctx, inliner, body, {item.begin(), item.begin() + static_cast<std::ptrdiff_t>(carried)},
                        {item.begin() + static_cast<std::ptrdiff_t>(carried), item.end()}, layout,
                        "body/batch_" + std::to_string(b) + "/");
        for (size_t k = 0; k < outs.size(); ++k) per_batch[k].push_back(outs[k]);
    }
    Outputs results;
    for (const auto& values : per_batch) results.push_back(stack(ctx, values));
    return results;
}

const TranslatorRegistration registration({
    {"If", if_op},
    {"Loop", loop},
    {"Scan", scan},
});

}  // namespace

}  // namespace mosaic::onnx_import
