// The one-line account of how HETERO split a model, printed by `mosaic run`, `benchmark` and
// `visualize` after compiling:
//   Split: ACCEL 9 ops, REFERENCE 5 ops; 4 subgraphs; 12288 bytes cross devices per inference
#pragma once

#include <mosaic/compiled_model.hpp>

#include <string>

namespace mosaic::cli {

// The line (without a newline) for a HETERO_SPLIT value: devices with no ops are left out, the
// subgraph count is the size of "subgraphs", the bytes are "transfer_bytes". Fields that are
// missing count as empty or zero, so a plugin that reports less still gets a line.
std::string format_split_summary(const PropertyValue& split);

// The line for a compiled model, or "" when it has no HETERO_SPLIT property (not a HETERO device).
std::string split_summary(const CompiledModel& compiled);

}  // namespace mosaic::cli
