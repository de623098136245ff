// The CPU's side of compressed weights (sdk/compressed_weights.hpp): the codes repacked for its
// kernels (compressed_matmul_kernel.hpp) once per process. Which decompressions it leaves unfolded:
// sdk::patterns::compressed_decompressions, with Gathers (compressed_gather_executor.hpp).
#pragma once

#include "compressed_matmul_kernel.hpp"
#include "executor.hpp"

#include <mosaic/sdk/compressed_weights.hpp>

#include <memory>
#include <vector>

namespace mosaic::cpu_plugin {

// The compressed weights `w` found in `ctx`'s table, repacked; shared by every compiled model that
// repacks the same constant with the same parameters (constant_cache.hpp), `shared` says whether
// another one had.
std::shared_ptr<const CompressedMatrix> compressed_matrix_of(const BuildContext& ctx, const sdk::patterns::CompressedWeights& w,
                                                             bool& shared);

// What the table knows at compile time: a constant.
inline auto constant_in(const ValueTable& values) {
    return [&values](size_t v) { return values[v].is_constant(); };
}

}  // namespace mosaic::cpu_plugin
