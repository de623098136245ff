// Copies a device makes of a graph constant (weights packed for a primitive, compressed weights
// repacked for a kernel), made once in the whole process and shared by every compiled model that
// makes the same copy of the same constant: a model with dynamic shapes compiles one specialization
// per set of input shapes (an LLM: per prompt length and KV-cache capacity), and each would otherwise
// hold its own copy of every weight.
//
// The key is the constant's address (the host's bytes, valid and unchanged while its compiled model
// lives) and what the copy is (`Key`, compared with ==). Why the address is a sound key: an entry is
// found only while a copy is alive, and a copy is held only by executors of compiled models whose
// constant lives at that address for as long as they do; executors go before their value table, and
// a plugin's compiled model before the graph the host gave it. So two constants alive at one address
// at once are the same bytes. Only the graph's constants may be keys: a value the device folded is
// each compiled model's own.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>

namespace mosaic::cpu_plugin {

template <class Key, class T>
class ConstantCache {
public:
    std::shared_ptr<const T> find(const void* source, const Key& key) {
        std::lock_guard<std::mutex> lock(mutex_);
        return find_locked(source, key);
    }

    // Keeps `made` unless another thread made the same meanwhile; returns the one to use.
    std::shared_ptr<const T> add(const void* source, const Key& key, std::shared_ptr<const T> made) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (auto found = find_locked(source, key)) return found;
        // Entries whose copies are gone are dropped now and then, so the table follows what is alive.
        if (++adds_ % 256 == 0)
            for (auto it = entries_.begin(); it != entries_.end();)
                it = it->second.copy.expired() ? entries_.erase(it) : std::next(it);
        entries_.emplace(source, Entry{key, made});
        return made;
    }

private:
    struct Entry {
        Key key;
        std::weak_ptr<const T> copy;
    };

    std::shared_ptr<const T> find_locked(const void* source, const Key& key) {
        auto [it, end] = entries_.equal_range(source);
        while (it != end) {
            if (it->second.copy.expired()) {
                it = entries_.erase(it);
                continue;
            }
            if (it->second.key == key)
                if (auto alive = it->second.copy.lock()) return alive;
            ++it;
        }
        return nullptr;
    }

    std::mutex mutex_;
    std::unordered_multimap<const void*, Entry> entries_;
    size_t adds_ = 0;
};

}  // namespace mosaic::cpu_plugin
