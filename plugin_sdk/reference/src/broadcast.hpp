// numpy-style broadcasting for reference kernels: the broadcast shape of several inputs, and a map
// from each flat index of the broadcast (output) shape to the flat index of one input.
//
// Shapes are aligned on their last dimension; a missing leading dimension or a dimension of 1 is
// repeated along the output. auto_broadcast="none" is the special case of equal shapes, where the
// map is the identity, so kernels can use the same code for both modes.
#pragma once

#include <mosaic/element_type.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace mosaic::reference {

// The numpy broadcast of two shapes; throws std::runtime_error naming both when incompatible.
inline Shape broadcast_shape(const Shape& a, const Shape& b) {
    const size_t rank = std::max(a.size(), b.size());
    Shape out(rank);
    for (size_t i = 0; i < rank; ++i) {
        const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1)
            throw std::runtime_error("shapes " + to_string(a) + " and " + to_string(b) +
                                     " cannot be broadcast together");
        out[i] = da == 1 ? db : da;
    }
    return out;
}

// Maps flat indices of `output` to flat indices of `input`, where `input` numpy-broadcasts to
// `output`. Each call costs O(rank): plain and obviously correct rather than fast.
class BroadcastIndex {
public:
    BroadcastIndex(const Shape& input, const Shape& output) : dims_(output), strides_(output.size(), 0) {
        if (input.size() > output.size())
            throw std::runtime_error("shape " + to_string(input) + " cannot be broadcast to " + to_string(output));
        const size_t lead = output.size() - input.size();
        int64_t stride = 1;
        for (size_t i = input.size(); i-- > 0;) {
            const int64_t d = input[i];
            if (d != output[lead + i] && d != 1)
                throw std::runtime_error("shape " + to_string(input) + " cannot be broadcast to " +
                                         to_string(output));
            strides_[lead + i] = d == 1 ? 0 : stride;
            stride *= d;
        }
    }

    int64_t operator()(int64_t out_index) const {
        int64_t in_index = 0;
        for (size_t d = dims_.size(); d-- > 0;) {
            in_index += (out_index % dims_[d]) * strides_[d];
            out_index /= dims_[d];
        }
        return in_index;
    }

private:
    Shape dims_;                    // output dims
    std::vector<int64_t> strides_;  // input stride per output dim; 0 where the input repeats
};

}  // namespace mosaic::reference
