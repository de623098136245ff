// Reference kernel of Einsum-7. Every label of the equation (and every dimension an ellipsis
// covers) becomes one axis of a joint index space: the output's axes first, then the summed ones.
// The kernel walks that space once and adds the product of the inputs into the output element.
// Each input is read through one stride per joint axis: a label repeated within an input adds its
// dimensions' strides (so the walk follows the diagonal), and a broadcast dimension of size 1 has
// stride 0. Slow, and plainly correct, which is what a reference kernel is for.
//
// Floating-point products accumulate in double; integer arithmetic wraps modulo 2^64 before the
// result is narrowed, which equals wrapping in the element type.
#include "data_movement_kernels.hpp"
#include "data_movement_util.hpp"
#include "type_dispatch.hpp"

#include <mosaic/reference/einsum_equation.hpp>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <type_traits>

namespace mosaic::reference {

namespace {

using einsum::Subscript;

// The walk over the joint index space.
struct Plan {
    std::vector<int64_t> sizes;                  // per joint axis
    std::vector<std::vector<int64_t>> strides;   // per input, per joint axis
    size_t output_axes = 0;                      // the joint axes [0, output_axes) are the output's
    Shape output_shape;
};

// The joint axis of each dimension of each operand, and the joint axes' sizes. Joint axes are
// numbered in order of appearance: the ellipsis dimensions first (right-aligned across inputs, as
// numpy broadcasts them), then the labels.
struct Layout {
    std::vector<std::vector<size_t>> input_axes;
    std::vector<size_t> output_axes;
    std::vector<int64_t> sizes;
};

Layout lay_out(const KernelArgs& args, const std::vector<Subscript>& inputs, const Subscript& output) {
    size_t ellipsis_rank = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const size_t rank = args.inputs[i].shape.size();
        dm::check(args, einsum::fits_rank(inputs[i], rank),
                  "subscript " + std::to_string(i) + " does not match the rank of input " + std::to_string(i));
        if (inputs[i].has_ellipsis) ellipsis_rank = std::max(ellipsis_rank, rank - inputs[i].labels.size());
    }
    Layout l;
    l.sizes.assign(ellipsis_rank, 1);
    std::map<char, size_t> label_axis;
    auto axis_of = [&](char c) {
        auto [it, fresh] = label_axis.emplace(c, l.sizes.size());
        if (fresh) l.sizes.push_back(-1);
        return it->second;
    };
    for (size_t i = 0; i < inputs.size(); ++i) {
        const Shape& shape = args.inputs[i].shape;
        const Subscript& s = inputs[i];
        const size_t covered = shape.size() - s.labels.size();
        std::vector<size_t> axes;
        for (size_t d = 0; d < shape.size(); ++d) {
            const bool in_ellipsis = s.has_ellipsis && d >= s.ellipsis_at && d < s.ellipsis_at + covered;
            const size_t axis = in_ellipsis ? ellipsis_rank - covered + (d - s.ellipsis_at)
                                            : axis_of(s.labels[d < s.ellipsis_at || !s.has_ellipsis ? d : d - covered]);
            int64_t& size = l.sizes[axis];
            if (size < 0 || (in_ellipsis && size == 1)) size = shape[d];
            dm::check(args, size == shape[d] || (in_ellipsis && shape[d] == 1),
                      "dimension " + std::to_string(d) + " of input " + std::to_string(i) + " " + to_string(shape) +
                          " does not match the other dimensions with its label");
            axes.push_back(axis);
        }
        l.input_axes.push_back(std::move(axes));
    }
    for (size_t c = 0; c <= output.labels.size(); ++c) {
        if (output.has_ellipsis && c == output.ellipsis_at)
            for (size_t e = 0; e < ellipsis_rank; ++e) l.output_axes.push_back(e);
        // parse_equation saw to it that every output label is an input's
        if (c < output.labels.size()) l.output_axes.push_back(label_axis.at(output.labels[c]));
    }
    return l;
}

// Reorders the joint axes so the output's come first, and gives each input its strides over them.
Plan make_plan(const KernelArgs& args, const Layout& l) {
    std::vector<size_t> order = l.output_axes;
    for (size_t a = 0; a < l.sizes.size(); ++a)
        if (std::find(order.begin(), order.end(), a) == order.end()) order.push_back(a);
    std::vector<size_t> position(l.sizes.size());
    for (size_t p = 0; p < order.size(); ++p) position[order[p]] = p;

    Plan plan;
    plan.output_axes = l.output_axes.size();
    for (size_t a : order) plan.sizes.push_back(l.sizes[a]);
    for (size_t a : l.output_axes) plan.output_shape.push_back(l.sizes[a]);
    for (size_t i = 0; i < l.input_axes.size(); ++i) {
        const Shape& shape = args.inputs[i].shape;
        const std::vector<int64_t> dims_strides = dm::strides_of(shape);
        std::vector<int64_t> strides(order.size(), 0);
        for (size_t d = 0; d < shape.size(); ++d)
            if (shape[d] != 1 || l.sizes[l.input_axes[i][d]] == 1) strides[position[l.input_axes[i][d]]] += dims_strides[d];
        plan.strides.push_back(std::move(strides));
    }
    return plan;
}

template <typename T>
void einsum_typed(const KernelArgs& args, const Plan& plan) {
    using A = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;
    const TensorView& out = args.outputs[0];
    std::vector<A> acc(static_cast<size_t>(out.size()), A(0));
    const size_t n = args.inputs.size();
    const int64_t summed = shape_size(Shape(plan.sizes.begin() + static_cast<int64_t>(plan.output_axes), plan.sizes.end()));
    int64_t step = 0;
    dm::for_each_index(plan.sizes, [&](const std::vector<int64_t>& at) {
        A product = A(1);
        for (size_t i = 0; i < n; ++i) {
            int64_t offset = 0;
            for (size_t a = 0; a < at.size(); ++a) offset += at[a] * plan.strides[i][a];
            product *= static_cast<A>(args.inputs[i].as<T>()[offset]);
        }
        acc[static_cast<size_t>(step++ / summed)] += product;
    });
    T* y = out.as<T>();
    for (size_t j = 0; j < acc.size(); ++j) y[j] = static_cast<T>(acc[j]);
}

// The parser is shared with shape inference; its errors become this kernel's.
einsum::Equation parse_equation(const KernelArgs& args) {
    const std::string equation = args.attrs.get_string("equation");
    try {
        return einsum::parse_equation(equation, args.inputs.size());
    } catch (const std::invalid_argument& e) {
        dm::fail(args, e.what());
    }
}

void einsum_kernel(const KernelArgs& args) {
    dm::check(args, !args.inputs.empty() && args.outputs.size() == 1, "expected at least 1 input and 1 output");
    const einsum::Equation eq = parse_equation(args);
    const Plan plan = make_plan(args, lay_out(args, eq.inputs, eq.output));
    dm::check_shape(args, args.outputs[0].shape, plan.output_shape, "output");
    for (const auto& in : args.inputs)
        dm::check(args, in.type == args.outputs[0].type, "inputs and output must share one element type");
    if (args.outputs[0].size() == 0) return;
    dispatch<kNumeric>(args.outputs[0].type, args.op_type, [&](auto tag) {
        einsum_typed<typename decltype(tag)::type>(args, plan);
    });
}

}  // namespace

void register_einsum_kernels(KernelRegistry& r) { r.add("Einsum", {"opset7"}, einsum_kernel); }

}  // namespace mosaic::reference
