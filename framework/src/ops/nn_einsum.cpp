// Schema of Einsum-7: the Einstein summation named by an `equation` such as "bij,bjk->bik".
// Supported: explicit ("->") and implicit output, repeated labels within one input (a diagonal),
// and one ellipsis per subscript standing for dimensions broadcast numpy-style across inputs.
// Like numpy, an explicit output may leave out the ellipsis, which then sums those dimensions out.
#include "ops/data_movement_ops.hpp"

#include <mosaic/reference/einsum_equation.hpp>

#include <limits>
#include <map>
#include <stdexcept>

namespace mosaic::ops {

namespace {

using reference::einsum::Equation;
using reference::einsum::Subscript;

// The parser is shared with the reference kernel; its errors become this node's.
Equation parse_equation(const InferContext& ctx) {
    const std::string equation = ctx.attrs().get_string("equation");
    try {
        return reference::einsum::parse_equation(equation, ctx.input_count());
    } catch (const std::invalid_argument& e) {
        ctx.fail(e.what());
    }
}

// Merges a dimension size into a label's or an ellipsis position's size; dynamic dims defer to static
// ones, and an ellipsis dimension of 1 broadcasts.
bool merge_dim(int64_t& into, int64_t dim, bool broadcast) {
    if (into == dim || dim < 0 || (broadcast && dim == 1)) return true;
    if (into < 0 || (broadcast && into == 1)) {
        into = dim;
        return true;
    }
    return false;
}

std::vector<PortInfo> infer_einsum(const InferContext& ctx) {
    const ElementType type = ctx.input_type(0);
    ctx.check(type != ElementType::boolean && type != ElementType::undefined,
              "inputs must have a numeric element type, got " + std::string(to_string(type)));
    for (size_t i = 1; i < ctx.input_count(); ++i)
        ctx.check(ctx.input_type(i) == type, "input " + std::to_string(i) + " has element type " +
                                                 to_string(ctx.input_type(i)) + " but input 0 has " + to_string(type) +
                                                 "; Einsum needs one type");
    const Equation eq = parse_equation(ctx);

    std::map<char, int64_t> label_dims;
    Shape ellipsis;  // the broadcast ellipsis dimensions, right-aligned across inputs
    for (size_t i = 0; i < eq.inputs.size(); ++i) {
        const Subscript& s = eq.inputs[i];
        const Shape& shape = ctx.input_shape(i);
        const std::string where = "input " + std::to_string(i) + " with shape " + to_string(shape) + " and subscript '" +
                                  reference::einsum::to_string(s) + "'";
        ctx.check(reference::einsum::fits_rank(s, shape.size()),
                  where + ": the subscript's labels do not match the rank " + std::to_string(shape.size()));
        const size_t covered = shape.size() - s.labels.size();
        for (size_t l = 0; l < s.labels.size(); ++l) {
            const int64_t dim = shape[l < s.ellipsis_at || !s.has_ellipsis ? l : l + covered];
            auto [it, fresh] = label_dims.emplace(s.labels[l], dim);
            ctx.check(fresh || merge_dim(it->second, dim, false),
                      where + ": label '" + std::string(1, s.labels[l]) + "' has size " + std::to_string(dim) +
                          " here but " + std::to_string(it->second) + " elsewhere");
        }
        if (covered > ellipsis.size()) ellipsis.insert(ellipsis.begin(), covered - ellipsis.size(), 1);
        for (size_t e = 0; e < covered; ++e) {
            int64_t& into = ellipsis[ellipsis.size() - covered + e];
            const int64_t dim = shape[s.ellipsis_at + e];
            ctx.check(merge_dim(into, dim, true), where + ": the dimensions its ellipsis covers cannot be broadcast "
                                                          "with those of the other inputs");
        }
    }

    Shape out;
    for (size_t l = 0; l <= eq.output.labels.size(); ++l) {
        if (eq.output.has_ellipsis && l == eq.output.ellipsis_at) out.insert(out.end(), ellipsis.begin(), ellipsis.end());
        if (l < eq.output.labels.size()) out.push_back(label_dims.at(eq.output.labels[l]));
    }
    return {{type, out}};
}

}  // namespace

void register_einsum_ops(OpRegistry& r) {
    r.add({"Einsum", {"opset7"}, 1, std::numeric_limits<size_t>::max(), infer_einsum});
}

}  // namespace mosaic::ops
