// The tensors of a graph compiled for the CPU ("values"): the SDK's value table (sdk/value_table.hpp:
// constants, graph inputs and outputs used in place, intermediates in the memory plan's buffers,
// constant folding with the reference kernels; a Reshape of a computed tensor runs as a copy).
//
// A CPU value also has a physical layout. Constants, graph inputs and outputs are plain row-major;
// an intermediate f32 tensor between oneDNN executors keeps the blocked layout its producer wrote
// (nChw16c, ...), so a chain of convolutions and poolings never reorders in between. A consumer
// that needs it plain reads a plain copy, made once by a reorder executor (executor_builder.cpp).
#pragma once

#include <mosaic/sdk/value_table.hpp>

#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>

namespace mosaic::cpu_plugin {

using sdk::kNoValue;
using sdk::ResultCopy;
using sdk::ValueId;
using Use = sdk::ValueUse;

struct Value : sdk::Value {
    dnnl::memory::desc layout;  // empty: plain row-major; else the blocked layout it is stored in

    // What its storage takes: a blocked layout pads channels up to the block.
    size_t storage_bytes() const { return is_plain() ? byte_size() : layout.get_size(); }
    bool is_plain() const { return layout.is_zero(); }
};

class ValueTable : public sdk::BasicValueTable<Value> {
public:
    explicit ValueTable(const sdk::GraphView& graph, sdk::ValueTableOptions options = {})
        : BasicValueTable(graph, std::move(options)) {}

    // While executors are built: the layout an intermediate's producer writes it in, and a new
    // intermediate holding a plain copy of `of` (a node reads it through rebind_input).
    void set_layout(ValueId v, const dnnl::memory::desc& layout);
    ValueId add_plain_copy(ValueId of);
};

}  // namespace mosaic::cpu_plugin
