// ONNX Unique's slices, what Mosaic's Unique-mosaic1 computes. Shared by its reference kernel and its
// shape inference, whose unique count is known once the input's values are (a model computing them
// runs in stages around the op, framework/src/graph/cut_model.hpp).
#pragma once

#include <mosaic/tensor_view.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace mosaic::reference {

struct UniqueSlices {
    std::vector<int64_t> first;    // per unique slice, in output order: where it first occurs in x
    std::vector<int64_t> inverse;  // per slice of x: the position of its unique slice in the output
    std::vector<int64_t> counts;   // per unique slice: how many slices of x equal it
};

// The distinct slices of x along `axis` (each element alone when there is none): in ascending
// lexicographic order when `sorted`, else in the order they first occur. NaNs equal each other and
// sort last. x has a numeric or boolean type (not f16/bf16: widen them first); throws
// std::runtime_error for an axis outside x's rank.
UniqueSlices unique_slices(const ConstTensorView& x, std::optional<int64_t> axis, bool sorted);

}  // namespace mosaic::reference
