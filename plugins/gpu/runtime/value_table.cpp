#include "runtime/value_table.hpp"

#include <mosaic/sdk/compressed_weights.hpp>

namespace mosaic::gpu_plugin {

namespace {

sdk::ValueTableOptions gpu_options(const sdk::GraphView& graph) {
    sdk::ValueTableOptions options;
    options.views_share_storage = true;
    options.fold_errors_throw = true;
    // Compressed weights stay compressed in device memory: their MatMuls and Gathers read the codes
    // (ops/compressed_matmul_ops.cpp).
    options.unfolded = sdk::patterns::compressed_decompressions(graph, true);
    return options;
}

}  // namespace

ValueTable::ValueTable(const sdk::GraphView& graph, bool half_floats)
    : ValueTable(graph, half_floats, gpu_options(graph)) {}

ValueTable::ValueTable(const sdk::GraphView& graph, bool half_floats, sdk::ValueTableOptions options)
    : BasicValueTable(graph, options), half_floats_(half_floats), decompressed_in_kernels_(std::move(options.unfolded)) {
    for (ValueId v = 0; v < size(); ++v) value(v).stored = device_type(value(v).type);
}

}  // namespace mosaic::gpu_plugin
