#include "packed_weights.hpp"

#include "constant_cache.hpp"
#include "onednn_util.hpp"

#include <utility>
#include <vector>

namespace mosaic::cpu_plugin {

namespace {

std::shared_ptr<const dnnl::memory> reorder_copy(const dnnl::engine& engine, const dnnl::memory::desc& plain,
                                                 const void* data, const dnnl::memory::desc& wanted) {
    auto packed = std::make_shared<dnnl::memory>(wanted, engine);
    const dnnl::memory source(plain, engine, const_cast<void*>(data));  // read only
    const Reorder reorder(engine, plain, wanted);
    std::vector<uint8_t> scratchpad(reorder.scratchpad_bytes());
    dnnl::stream stream(engine);
    reorder.run(stream, source, *packed, scratchpad.data());
    stream.wait();
    return packed;
}

// The packed copies alive in the process, by the constant they were packed from and their layouts.
using PackedCache = ConstantCache<std::pair<dnnl::memory::desc, dnnl::memory::desc>, dnnl::memory>;

PackedCache& cache() {
    static PackedCache instance;
    return instance;
}

}  // namespace

PackedWeights::PackedWeights(const dnnl::engine& engine, const dnnl::memory::desc& plain, const void* data,
                             const dnnl::memory::desc& wanted)
    : desc_(wanted) {
    if (plain == wanted) {
        data_ = const_cast<void*>(data);  // oneDNN's memory takes a mutable handle; weights are only read
        return;
    }
    owned_ = reorder_copy(engine, plain, data, wanted);
    data_ = owned_->get_data_handle();
}

PackedWeights PackedWeights::of_constant(const dnnl::engine& engine, const dnnl::memory::desc& plain,
                                         const void* constant, const dnnl::memory::desc& wanted) {
    PackedWeights w;
    w.desc_ = wanted;
    if (plain == wanted) {
        w.data_ = const_cast<void*>(constant);
        return w;
    }
    w.owned_ = cache().find(constant, {plain, wanted});
    w.shared_ = bool(w.owned_);
    if (!w.shared_) {
        std::shared_ptr<const dnnl::memory> mine = reorder_copy(engine, plain, constant, wanted);
        w.owned_ = cache().add(constant, {plain, wanted}, mine);
        w.shared_ = w.owned_ != mine;  // another compile packed the same meanwhile
    }
    w.data_ = w.owned_->get_data_handle();
    return w;
}

void PackedWeightsTotals::add(const PackedWeights& w) {
    if (w.reordered()) add(w.byte_size(), w.shared());  // else read in place: nothing packed
}

}  // namespace mosaic::cpu_plugin
