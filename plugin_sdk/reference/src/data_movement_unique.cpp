// Reference kernel of Unique-mosaic1 (ONNX's semantics) and the slices it shares with the op's shape
// inference (mosaic/reference/unique.hpp).
#include "data_movement_kernels.hpp"
#include "data_movement_util.hpp"
#include "type_dispatch.hpp"

#include <mosaic/reference/unique.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace mosaic::reference {

namespace {

// A total order on one element type: NaN equal to NaN and after every number.
template <typename T>
int compare(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a) || std::isnan(b)) return std::isnan(a) == std::isnan(b) ? 0 : std::isnan(a) ? 1 : -1;
    }
    return a < b ? -1 : b < a ? 1 : 0;
}

}  // namespace

UniqueSlices unique_slices(const ConstTensorView& x, std::optional<int64_t> axis, bool sorted) {
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    int64_t outer = 1, n = x.size(), inner = 1;
    if (axis) {
        const int64_t a = *axis < 0 ? *axis + rank : *axis;
        if (a < 0 || a >= rank)
            throw std::runtime_error("Unique: axis " + std::to_string(*axis) + " is outside the input's rank " + std::to_string(rank));
        outer = shape_size(Shape(x.shape.begin(), x.shape.begin() + a));
        n = x.shape[static_cast<size_t>(a)];
        inner = shape_size(Shape(x.shape.begin() + a + 1, x.shape.end()));
    }
    UniqueSlices out;
    dispatch<kAnyType>(x.type, "Unique", [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* v = x.as<T>();
        // Slice k's elements in (outer, inner) order: numpy's moveaxis(x, axis, 0).reshape(n, -1).
        auto order = [&](int64_t p, int64_t q) {
            for (int64_t o = 0; o < outer; ++o)
                for (int64_t i = 0; i < inner; ++i)
                    if (const int c = compare(v[(o * n + p) * inner + i], v[(o * n + q) * inner + i]); c != 0) return c;
            return 0;
        };
        // Every slice sorted (stable: equal slices keep their order, so a run starts at its first).
        std::vector<int64_t> by_value(static_cast<size_t>(n));
        std::iota(by_value.begin(), by_value.end(), 0);
        std::stable_sort(by_value.begin(), by_value.end(), [&](int64_t p, int64_t q) { return order(p, q) < 0; });
        std::vector<int64_t> run_of(static_cast<size_t>(n));
        for (size_t j = 0; j < by_value.size(); ++j) {
            if (j == 0 || order(by_value[j - 1], by_value[j]) != 0) {
                out.first.push_back(by_value[j]);
                out.counts.push_back(0);
            }
            run_of[static_cast<size_t>(by_value[j])] = static_cast<int64_t>(out.first.size()) - 1;
            ++out.counts.back();
        }
        // Unsorted: the runs in the order of their first occurrence.
        std::vector<int64_t> position(out.first.size());
        std::iota(position.begin(), position.end(), 0);
        if (!sorted) {
            std::vector<int64_t> runs(out.first.size());
            std::iota(runs.begin(), runs.end(), 0);
            std::sort(runs.begin(), runs.end(), [&](int64_t a, int64_t b) { return out.first[a] < out.first[b]; });
            UniqueSlices reordered;
            for (size_t j = 0; j < runs.size(); ++j) {
                position[static_cast<size_t>(runs[j])] = static_cast<int64_t>(j);
                reordered.first.push_back(out.first[static_cast<size_t>(runs[j])]);
                reordered.counts.push_back(out.counts[static_cast<size_t>(runs[j])]);
            }
            out.first = std::move(reordered.first);
            out.counts = std::move(reordered.counts);
        }
        for (int64_t k = 0; k < n; ++k) out.inverse.push_back(position[static_cast<size_t>(run_of[static_cast<size_t>(k)])]);
    });
    return out;
}

namespace dm {

// Outputs: the unique slices, where each first occurs, each slice's unique slice, each one's count.
void unique_kernel(const KernelArgs& args) {
    check(args, args.inputs.size() == 1 && !args.outputs.empty() && args.outputs.size() <= 4, "expected 1 input and 1 to 4 outputs");
    const ConstTensorView& x = args.inputs[0];
    const std::optional<int64_t> axis =
        args.attrs.has("axis") ? std::optional<int64_t>(args.attrs.get_int("axis")) : std::nullopt;
    const UniqueSlices u = unique_slices(x, axis, args.attrs.get_int("sorted", 1) != 0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const int64_t a = axis ? (*axis < 0 ? *axis + rank : *axis) : 0;
    const int64_t outer = axis ? shape_size(Shape(x.shape.begin(), x.shape.begin() + a)) : 1;
    const int64_t n = axis ? x.shape[static_cast<size_t>(a)] : x.size();
    const int64_t inner = axis ? shape_size(Shape(x.shape.begin() + a + 1, x.shape.end())) : 1;
    const int64_t count = static_cast<int64_t>(u.first.size());
    Shape y = axis ? x.shape : Shape{x.size()};
    y[static_cast<size_t>(axis ? a : 0)] = count;
    check_shape(args, args.outputs[0].shape, y, "output 0 (the unique values)");
    const size_t esize = element_size(x.type);
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < count; ++j)
            std::memcpy(static_cast<uint8_t*>(args.outputs[0].data) + static_cast<size_t>((o * count + j) * inner) * esize,
                        static_cast<const uint8_t*>(x.data) + static_cast<size_t>((o * n + u.first[j]) * inner) * esize,
                        static_cast<size_t>(inner) * esize);
    const std::vector<int64_t>* rest[] = {&u.first, &u.inverse, &u.counts};
    for (size_t k = 1; k < args.outputs.size(); ++k) {
        const std::vector<int64_t>& values = *rest[k - 1];
        check(args, args.outputs[k].type == ElementType::i64, "output " + std::to_string(k) + " must be i64");
        check_shape(args, args.outputs[k].shape, Shape{static_cast<int64_t>(values.size())}, "an index output");
        std::copy(values.begin(), values.end(), args.outputs[k].as<int64_t>());
    }
}

}  // namespace dm

void register_unique_kernels(KernelRegistry& r) { r.add("Unique", {"mosaic1"}, dm::unique_kernel); }

}  // namespace mosaic::reference
