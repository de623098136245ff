// Element-wise ops: the activations (activation.hpp) and binary arithmetic with numpy broadcasting,
// f32, and i32/i64 arithmetic but PRelu; PRelu's slope per channel or broadcast. A binary op with an
// activation after it runs both in one kernel. Comparisons, logical ops and Select are in
// predicate_ops.cpp.
#include "ops/activation.hpp"
#include "kernels/kernel_args.hpp"
#include "ops/op_registry.hpp"

#include <mosaic/sdk/fake_quantize_rewrite.hpp>

namespace mosaic::gpu_plugin {

namespace {

std::string check_elements(const sdk::GraphView& g, size_t n) {
    return first_of({check_types(g, n, {ElementType::f32}), check_static_nonempty(g, n),
                     shape_size(g.output_shape(n, 0)) >= (int64_t{1} << 31) ? "more than 2^31 elements" : ""});
}

bool is_integer(ElementType t) { return t == ElementType::i32 || t == ElementType::i64; }

// Integer binary arithmetic: i32 or i64 operands; a divisor known at compile time without a 0 and
// an exponent without a negative value, which the reference refuses at run time and a kernel
// cannot (eltwise.cl's binary_int).
std::string check_integer_binary(const sdk::GraphView& g, size_t n) {
    const std::string type = g.type(n);
    if (auto r = first_of({check_types(g, n, {g.output_type(n, 0)}), check_static_nonempty(g, n),
                           shape_size(g.output_shape(n, 0)) >= (int64_t{1} << 31) ? "more than 2^31 elements" : ""});
        !r.empty())
        return r;
    if (type == "PRelu") return "PRelu of integers has no GPU kernel";
    const bool divides = type == "Divide" || type == "Mod" || type == "FloorMod";
    if (!divides && type != "Power") return "";
    if (auto r = check_constant_input(g, n, 1); !r.empty())
        return "integer " + type + " needs its " + (divides ? "divisor" : "exponent") +
               " known at compile time on the GPU (the reference refuses " + (divides ? "a zero divisor" : "a negative exponent") +
               " at run time, which a kernel cannot): " + r;
    for (int64_t v : constant_ints(g, n, 1))
        if (divides ? v == 0 : v < 0)
            return "integer " + type + (divides ? " by zero" : " to a negative power") + " has no GPU kernel";
    return "";
}

// Divide's m_pythondiv (default true: integer division floors), under the spellings the reference
// also reads.
bool floors_division(const sdk::GraphView& g, size_t n) {
    const Attributes& a = g.attributes(n);
    for (const char* name : {"m_pythondiv", "pythondivision", "m_pythondivision"})
        if (a.has(name)) return a.get_bool(name);
    return true;
}

// Whether the kernels of sixteen elements a work item (eltwise.cl) run `count` elements on `device`.
bool sixteen_wide(int64_t count, const ClDeviceInfo& device) { return device.prefers_sixteen_wide() && count % 16 == 0; }

// Whether binary16_f32 reads an operand: by its index mode, without a full walk (eltwise.cl's
// operand16; blocks straddling two of its rows, lane by lane).
bool reads_by_sixteen(const OperandIndex& index) { return index.mode != OPERAND_WALK; }

class UnaryExecutor : public Executor {
public:
    UnaryExecutor(const BuildContext& ctx, size_t n, Activation act)
        : Executor(ctx.graph.node_name(n), ctx.graph.type(n), {ctx.values.input(n, 0)}, {ctx.values.output(n, 0)}),
          act_(act), count_(shape_size(ctx.graph.output_shape(n, 0))), wide_(sixteen_wide(count_, ctx.engine.info())) {}

    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel(exec_type());
        set_args(k, ctx[inputs()[0]], ctx[outputs()[0]], act_.kind, act_.a, act_.b);
        ctx.launch(k, items(wide_ ? count_ / 16 : count_));
    }
    std::string exec_type() const override { return wide_ ? "unary16_f32" : "unary_f32"; }

private:
    Activation act_;
    int64_t count_;
    bool wide_;
};

cl_int binary_code(const std::string& t) {
    if (t == "Add") return BIN_ADD;
    if (t == "Subtract") return BIN_SUB;
    if (t == "Multiply") return BIN_MUL;
    if (t == "Divide") return BIN_DIV;
    if (t == "Maximum") return BIN_MAX;
    if (t == "Minimum") return BIN_MIN;
    if (t == "Power") return BIN_POW;
    if (t == "PRelu") return BIN_PRELU;
    if (t == "Mod") return BIN_MOD;
    if (t == "FloorMod") return BIN_FLOORMOD;
    return BIN_SQDIFF;
}

// The shape input `i` of binary node `n` broadcasts as: PRelu's slope of one value a channel
// (rank 1, data.shape[1] values) lies along axis 1, not the trailing one numpy would align it with.
Shape broadcast_shape(const sdk::GraphView& g, size_t n, size_t i) {
    const Shape s = g.input_shape(n, i), data = g.input_shape(n, 0);
    if (g.type(n) != "PRelu" || i != 1 || s.size() != 1 || data.size() < 2 || s[0] != data[1] || s[0] == 1) return s;
    Shape channel(data.size() - 1, 1);
    channel[0] = s[0];
    return channel;
}

class BinaryExecutor : public Executor {
public:
    BinaryExecutor(BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), ctx.graph.type(n), {ctx.values.input(n, 0), ctx.values.input(n, 1)},
                   {ctx.values.output(n, 0)}),
          op_(binary_code(ctx.graph.type(n))) {
        const sdk::GraphView& g = ctx.graph;
        const Shape out = g.output_shape(n, 0);
        count_ = shape_size(out);
        if (is_integer(g.output_type(n, 0))) {
            integer_kernel_ = std::string("binary_bcast_") + to_string(g.output_type(n, 0));
            floor_div_ = floors_division(g, n) ? 1 : 0;
        }
        same_ = integer_kernel_.empty() && g.input_shape(n, 0) == out && g.input_shape(n, 1) == out;
        const std::vector<int64_t> a_strides = broadcast_strides(broadcast_shape(g, n, 0), out),
                                   b_strides = broadcast_strides(broadcast_shape(g, n, 1), out);
        walk_ = make_walk(out, a_strides, b_strides);
        a_index_ = operand_index(a_strides, out);
        b_index_ = operand_index(b_strides, out);
        wide_ = integer_kernel_.empty() && sixteen_wide(count_, ctx.engine.info()) && reads_by_sixteen(a_index_) &&
                reads_by_sixteen(b_index_);
        // An activation that alone reads the result runs in the same kernel.
        const Value& result = ctx.values[ctx.values.output(n, 0)];
        if (result.kind == Value::Kind::intermediate && result.uses.size() == 1) {
            const size_t next = result.uses[0].node;
            if (ctx.values.runs(next) && g.output_shape(next, 0) == out && ctx.values.input(next, 0) == ctx.values.output(n, 0)) {
                if (auto act = activation_of(g, next); act && act->kind != 0) {
                    act_ = *act;
                    ctx.fused[next] = true;
                    fused_into(g.node_name(next), ctx.values.output(next, 0));
                }
            }
        }
    }

    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel(exec_type());
        if (!integer_kernel_.empty())
            set_args(k, ctx[inputs()[0]], ctx[inputs()[1]], ctx[outputs()[0]], op_, walk_, a_index_.mode, a_index_.inner,
                     b_index_.mode, b_index_.inner, floor_div_);
        else if (wide_)
            set_args(k, ctx[inputs()[0]], ctx[inputs()[1]], ctx[outputs()[0]], op_, a_index_.mode, a_index_.inner,
                     b_index_.mode, b_index_.inner, act_.kind, act_.a, act_.b);
        else if (same_)
            set_args(k, ctx[inputs()[0]], ctx[inputs()[1]], ctx[outputs()[0]], op_, act_.kind, act_.a, act_.b);
        else
            set_args(k, ctx[inputs()[0]], ctx[inputs()[1]], ctx[outputs()[0]], op_, walk_, a_index_.mode, a_index_.inner,
                     b_index_.mode, b_index_.inner, act_.kind, act_.a, act_.b);
        ctx.launch(k, items(wide_ ? count_ / 16 : count_));
    }
    std::string exec_type() const override {
        if (!integer_kernel_.empty()) return integer_kernel_;
        return wide_ ? "binary16_f32" : (same_ ? "binary_same_f32" : "binary_bcast_f32");
    }

private:
    cl_int op_, floor_div_ = 0;
    std::string integer_kernel_;  // binary_bcast_i32 or _i64; empty for f32
    int64_t count_ = 0;
    bool same_ = false, wide_ = false;
    Walk walk_;
    OperandIndex a_index_, b_index_;
    Activation act_;
};

const OpRegistration unary({"Relu", "Clamp", "Sigmoid", "Tanh", "Elu", "Gelu", "Swish", "HSwish", "HSigmoid", "Mish",
                            "SoftPlus", "Exp", "Log", "Sqrt", "Abs", "Negative", "Erf", "Floor", "Ceiling", "Sin", "Cos",
                            "Sign", "HardSigmoid", "Selu", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh",
                            "Acosh", "Atanh", "Round"},
                           {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) -> std::string {
                                if (auto r = check_elements(g, n); !r.empty()) return r;
                                if (!activation_of(g, n)) return g.type(n) + " with these parameters has no GPU kernel (a run-time or non-scalar alpha, beta or lambda, an unknown approximation mode)";
                                return "";
                            },
                            [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                return std::make_unique<UnaryExecutor>(ctx, n, *activation_of(ctx.graph, n));
                            }});

// FakeQuantize is compiled as the quantize-dequantize ops it is (sdk/fake_quantize_rewrite.hpp),
// where the rewrite takes it; those ops need what an element-wise f32 op needs.
const OpRegistration fake_quantize({"FakeQuantize"},
                                   {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) -> std::string {
                                        if (!sdk::fake_quantize_as_qdq(g, n))
                                            return "FakeQuantize has a GPU form only with 256 levels, one constant range in and out (per "
                                                   "tensor or per channel) and a zero point on the integer grid";
                                        return first_of({check_elements(g, n), check_numpy_broadcast(g, n)});
                                    },
                                    [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                        throw sdk::Error(MOSAIC_ERROR_GENERAL, "GPU plugin bug: FakeQuantize '" + ctx.graph.node_name(n) +
                                                                                   "' was not rewritten before building");
                                    }});

const OpRegistration binary({"Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "Power", "SquaredDifference", "PRelu",
                             "Mod", "FloorMod"},
                            {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) -> std::string {
                                 return first_of({is_integer(g.output_type(n, 0)) ? check_integer_binary(g, n) : check_elements(g, n),
                                                  check_numpy_broadcast(g, n)});
                             },
                             [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                 // x op scalar constant: one activation, no second operand to walk (not
                                 // x / c, which the activation rounds once more as x * (1 / c)).
                                 if (auto act = activation_of(ctx.graph, n); act && ctx.graph.type(n) != "Divide")
                                     return std::make_unique<UnaryExecutor>(ctx, n, *act);
                                 return std::make_unique<BinaryExecutor>(ctx, n);
                             }});

}  // namespace

}  // namespace mosaic::gpu_plugin
