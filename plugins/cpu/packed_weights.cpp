#include "packed_weights.hpp"

#include "onednn_util.hpp"

#include <mutex>
#include <unordered_map>
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

// The packed copies alive in the process, by the address of the constant they were packed from.
class PackedCache {
public:
    std::shared_ptr<const dnnl::memory> find(const void* source, const dnnl::memory::desc& plain,
                                             const dnnl::memory::desc& wanted) {
        std::lock_guard<std::mutex> lock(mutex_);
        return find_locked(source, plain, wanted);
    }

    // Keeps `packed` unless another thread packed the same meanwhile; returns the one to use.
    std::shared_ptr<const dnnl::memory> add(const void* source, const dnnl::memory::desc& plain,
                                            const dnnl::memory::desc& wanted,
                                            std::shared_ptr<const dnnl::memory> packed) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (auto found = find_locked(source, plain, wanted)) return found;
        // Entries whose copies are gone are dropped now and then, so the table follows what is alive.
        if (++adds_ % 256 == 0)
            for (auto it = entries_.begin(); it != entries_.end();)
                it = it->second.packed.expired() ? entries_.erase(it) : std::next(it);
        entries_.emplace(source, Entry{plain, wanted, packed});
        return packed;
    }

private:
    struct Entry {
        dnnl::memory::desc plain, wanted;
        std::weak_ptr<const dnnl::memory> packed;
    };

    std::shared_ptr<const dnnl::memory> find_locked(const void* source, const dnnl::memory::desc& plain,
                                                    const dnnl::memory::desc& wanted) {
        auto [it, end] = entries_.equal_range(source);
        while (it != end) {
            if (it->second.packed.expired()) {
                it = entries_.erase(it);
                continue;
            }
            if (it->second.plain == plain && it->second.wanted == wanted)
                if (auto alive = it->second.packed.lock()) return alive;
            ++it;
        }
        return nullptr;
    }

    std::mutex mutex_;
    std::unordered_multimap<const void*, Entry> entries_;
    size_t adds_ = 0;
};

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
    w.owned_ = cache().find(constant, plain, wanted);
    w.shared_ = bool(w.owned_);
    if (!w.shared_) {
        std::shared_ptr<const dnnl::memory> mine = reorder_copy(engine, plain, constant, wanted);
        w.owned_ = cache().add(constant, plain, wanted, mine);
        w.shared_ = w.owned_ != mine;  // another compile packed the same meanwhile
    }
    w.data_ = w.owned_->get_data_handle();
    return w;
}

void PackedWeightsTotals::add(const PackedWeights& w) {
    if (!w.reordered()) return;  // read in place: nothing packed
    bytes += w.byte_size();
    if (w.shared()) shared_bytes += w.byte_size();
}

}  // namespace mosaic::cpu_plugin
