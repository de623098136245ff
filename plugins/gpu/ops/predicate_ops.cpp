// Comparisons (Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual) of f32, i32, i64, u8 or
// boolean operands and the logical ops (LogicalAnd, LogicalOr, LogicalXor, LogicalNot, and the
// Bitwise ones, which of booleans are the same) of booleans,
// to booleans; Select(cond, a, b) of operands of any 1-, 2-, 4- or 8-byte type: each with numpy
// broadcasting. These build the
// masks of encoders and decoders (a padding mask compared with 0, a causal mask selecting -inf),
// which would otherwise split a HETERO graph around them.
#include "kernels/kernel_args.hpp"
#include "ops/op_registry.hpp"

#include <map>

namespace mosaic::gpu_plugin {

namespace {

const std::map<std::string, PredicateOp>& predicate_ops() {
    static const std::map<std::string, PredicateOp> ops{
        {"Equal", PRED_EQ},      {"NotEqual", PRED_NE},   {"Less", PRED_LT},     {"LessEqual", PRED_LE},
        {"Greater", PRED_GT},    {"GreaterEqual", PRED_GE}, {"LogicalAnd", PRED_AND}, {"LogicalOr", PRED_OR},
        {"LogicalXor", PRED_XOR},
        // Of booleans (0 or 1) the bitwise ops are the logical ones: decoders AND their causal and
        // padding masks so (optimum-intel's IR).
        {"BitwiseAnd", PRED_AND}, {"BitwiseOr", PRED_OR}, {"BitwiseXor", PRED_XOR}};
    return ops;
}

bool takes_booleans(const std::string& type) { return type.rfind("Logical", 0) == 0 || type.rfind("Bitwise", 0) == 0; }

// The kernel suffix of an operand type, or "" for one without a kernel.
std::string type_suffix(ElementType t) {
    switch (t) {
        case ElementType::f32: return "f32";
        case ElementType::i32: return "i32";
        case ElementType::i64: return "i64";
        case ElementType::boolean:
        case ElementType::u8: return "u8";
        default: return "";
    }
}

std::string check_broadcast(const sdk::GraphView& g, size_t n) {
    if (auto r = check_static_nonempty(g, n); !r.empty()) return r;
    if (shape_size(g.output_shape(n, 0)) >= (int64_t{1} << 31)) return "more than 2^31 elements";
    return check_numpy_broadcast(g, n);
}

std::string check_predicate(const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
    const bool logical = takes_booleans(g.type(n));
    const ElementType t = g.input_type(n, 0);
    if (logical ? t != ElementType::boolean : type_suffix(t).empty())
        return "input 0 is " + std::string(to_string(t)) + ", the GPU kernel takes " + (logical ? "boolean" : "f32, i32, i64, u8 or boolean");
    for (size_t i = 1; i < g.input_count(n); ++i)
        if (g.input_type(n, i) != t) return "operands of different types have no GPU kernel";
    if (g.output_type(n, 0) != ElementType::boolean) return "output 0 is not boolean";
    return check_broadcast(g, n);
}

// An operand broadcast to the output: its walk strides and how the kernel indexes it.
struct Broadcast {
    std::vector<int64_t> strides;
    OperandIndex index;
};
Broadcast broadcast(const Shape& operand, const Shape& out) {
    Broadcast b{broadcast_strides(operand, out), {}};
    b.index = operand_index(b.strides, out);
    return b;
}

class PredicateExecutor : public Executor {
public:
    PredicateExecutor(const BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), ctx.graph.type(n), {ctx.values.input(n, 0), ctx.values.input(n, 1)},
                   {ctx.values.output(n, 0)}),
          op_(predicate_ops().at(ctx.graph.type(n))), kernel_("predicate_bcast_" + type_suffix(ctx.graph.input_type(n, 0))) {
        const Shape out = ctx.graph.output_shape(n, 0);
        a_ = broadcast(ctx.graph.input_shape(n, 0), out);
        b_ = broadcast(ctx.graph.input_shape(n, 1), out);
        walk_ = make_walk(out, a_.strides, b_.strides);
        count_ = shape_size(out);
    }
    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel(kernel_);
        set_args(k, ctx[inputs()[0]], ctx[inputs()[1]], ctx[outputs()[0]], op_, walk_, a_.index.mode, a_.index.inner,
                 b_.index.mode, b_.index.inner);
        ctx.launch(k, items(count_));
    }
    std::string exec_type() const override { return kernel_; }

private:
    cl_int op_;
    std::string kernel_;
    Broadcast a_, b_;
    Walk walk_;
    int64_t count_ = 0;
};

class LogicalNotExecutor : public Executor {
public:
    LogicalNotExecutor(const BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), ctx.graph.type(n), {ctx.values.input(n, 0)}, {ctx.values.output(n, 0)}),
          count_(shape_size(ctx.graph.output_shape(n, 0))) {}
    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel("logical_not_u8");
        set_args(k, ctx[inputs()[0]], ctx[outputs()[0]]);
        ctx.launch(k, items(count_));
    }
    std::string exec_type() const override { return "logical_not_u8"; }

private:
    int64_t count_;
};

class SelectExecutor : public Executor {
public:
    SelectExecutor(const BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), "Select", {ctx.values.input(n, 0), ctx.values.input(n, 1), ctx.values.input(n, 2)},
                   {ctx.values.output(n, 0)}) {
        const Shape out = ctx.graph.output_shape(n, 0);
        cond_ = broadcast(ctx.graph.input_shape(n, 0), out);
        a_ = broadcast(ctx.graph.input_shape(n, 1), out);
        b_ = broadcast(ctx.graph.input_shape(n, 2), out);
        cond_and_a_ = make_walk(out, cond_.strides, a_.strides);
        b_walk_ = make_walk(out, b_.strides);
        count_ = shape_size(out);
        kernel_ = "select_bcast_u" + std::to_string(element_size(ctx.device_type(ctx.graph.input_type(n, 1))) * 8);
    }
    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel(kernel_);
        set_args(k, ctx[inputs()[0]], ctx[inputs()[1]], ctx[inputs()[2]], ctx[outputs()[0]], cond_and_a_, b_walk_,
                 cond_.index.mode, cond_.index.inner, a_.index.mode, a_.index.inner, b_.index.mode, b_.index.inner);
        ctx.launch(k, items(count_));
    }
    std::string exec_type() const override { return kernel_; }

private:
    std::string kernel_;
    Broadcast cond_, a_, b_;
    Walk cond_and_a_, b_walk_;
    int64_t count_ = 0;
};

template <typename E>
OpBuild builder() {
    return [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> { return std::make_unique<E>(ctx, n); };
}

const OpRegistration predicates({"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
                                 "LogicalOr", "LogicalXor", "BitwiseAnd", "BitwiseOr", "BitwiseXor"},
                                {check_predicate, builder<PredicateExecutor>()});

const OpRegistration logical_not({"LogicalNot", "BitwiseNot"},
                                 {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
                                      return first_of({check_types(g, n, {ElementType::boolean}), check_broadcast(g, n)});
                                  },
                                  builder<LogicalNotExecutor>()});

const OpRegistration select({"Select"},
                            {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) -> std::string {
                                 if (g.input_type(n, 0) != ElementType::boolean) return "Select's condition must be boolean";
                                 const size_t bytes = element_size(g.input_type(n, 1));
                                 if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
                                     return "Select of " + std::string(to_string(g.input_type(n, 1))) + " has no GPU kernel";
                                 return check_broadcast(g, n);
                             },
                             builder<SelectExecutor>()});

}  // namespace

}  // namespace mosaic::gpu_plugin
