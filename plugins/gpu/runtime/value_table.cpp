#include "runtime/value_table.hpp"

namespace mosaic::gpu_plugin {

namespace {

sdk::ValueTableOptions gpu_options() {
    sdk::ValueTableOptions options;
    options.views_share_storage = true;
    options.fold_errors_throw = true;
    return options;
}

}  // namespace

ValueTable::ValueTable(const sdk::GraphView& graph, bool half_floats)
    : BasicValueTable(graph, gpu_options()), half_floats_(half_floats) {
    for (ValueId v = 0; v < size(); ++v) value(v).stored = device_type(value(v).type);
}

}  // namespace mosaic::gpu_plugin
