// DepthToSpace and SpaceToDepth as one transpose: the input's bytes viewed under a shape that splits
// its channel or spatial axes into blocks, whose axes are then permuted. The reference kernels
// permute by it, and a device plugin can run it as one strided copy.
#pragma once

#include <mosaic/element_type.hpp>

#include <cstdint>
#include <vector>

namespace mosaic::reference {

struct BlockPermutation {
    Shape split;                 // the input viewed row-major under this shape
    std::vector<int64_t> order;  // output axis i is split axis order[i]
};

// DepthToSpace of `in` ([N, C, D1, ..., DK]): channels C = bs^K x C' (blocks_first) or C' x bs^K
// (depth_first) split off, each block axis moved next to its spatial axis: [N, C', D1, bs, ...].
// The caller checks that bs^K divides C.
BlockPermutation depth_to_space_permutation(const Shape& in, int64_t block, bool blocks_first);

// SpaceToDepth of `in`: each spatial axis Dk split into [Dk / bs, bs], the block axes joining the
// channels before them (blocks_first) or after them (depth_first). The caller checks that bs
// divides every Dk.
BlockPermutation space_to_depth_permutation(const Shape& in, int64_t block, bool blocks_first);

}  // namespace mosaic::reference
