// A model compiled with dynamic input dimensions. Devices compile static graphs (the ABI's graph
// view has static shapes, so every plugin, a vendor's included, gets dynamic shapes for free): each
// distinct set of input shapes an inference brings is a specialization, the model reshaped to those
// shapes and compiled on first use, then kept in a bounded cache (least recently used goes first).
// An inference at a cached shape costs one lookup more than the same model compiled static.
#pragma once

#include <mosaic/model.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mosaic {

class DeviceHandle;

// Compile property (a count of shapes) that bounds the cache; consumed by the framework.
inline constexpr const char* kShapeCacheSizeKey = "DYNAMIC_SHAPE_CACHE_SIZE";
inline constexpr size_t kDefaultShapeCacheSize = 16;
// Read-only compiled-model property: how many specializations were compiled so far (a count that
// grows with each new set of input shapes; an LLM pipeline shows its decode steps reuse one).
inline constexpr const char* kShapeCompilationsKey = "DYNAMIC_SHAPE_COMPILATIONS";

// The shapes of the model's inputs, in input order: the key of a specialization.
using InputShapes = std::vector<Shape>;

template <typename Compiled>
class ShapeSpecializer {
public:
    // `compile` builds the specialization of the model for a set of input shapes; it may throw.
    using Compile = std::function<std::shared_ptr<Compiled>(const InputShapes&)>;

    ShapeSpecializer(Compile compile, size_t capacity) : compile_(std::move(compile)), capacity_(capacity ? capacity : 1) {}

    // The specialization for `shapes`, compiled on first use. Thread-safe; concurrent callers
    // asking for the same new shapes share one compilation, and other shapes are not blocked by it.
    std::shared_ptr<Compiled> get(const InputShapes& shapes) {
        std::promise<std::shared_ptr<Compiled>> promise;
        std::shared_future<std::shared_ptr<Compiled>> future;
        bool mine = false;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            for (auto it = entries_.begin(); it != entries_.end(); ++it) {
                if (it->shapes != shapes) continue;
                entries_.splice(entries_.begin(), entries_, it);  // most recently used first
                ++hits_;
                future = it->compiled;
                break;
            }
            if (!future.valid()) {
                future = promise.get_future().share();
                entries_.push_front({shapes, future});
                mine = true;
                while (entries_.size() > capacity_) entries_.pop_back();
            }
        }
        if (mine) {
            try {
                promise.set_value(compile_(shapes));
                std::lock_guard<std::mutex> lock(mutex_);
                ++compiled_;
            } catch (...) {
                promise.set_exception(std::current_exception());
                // A failed shape is not cached: the next call with it tries again and says why.
                std::lock_guard<std::mutex> lock(mutex_);
                entries_.remove_if([&](const Entry& e) { return e.shapes == shapes; });
            }
        }
        return future.get();
    }

    // The most recently used specialization that finished compiling; null when there is none.
    std::shared_ptr<Compiled> latest() const {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const Entry& e : entries_)
            if (e.compiled.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
                try {
                    return e.compiled.get();
                } catch (...) {
                    continue;
                }
            }
        return nullptr;
    }

    size_t capacity() const { return capacity_; }
    struct Stats {
        size_t cached = 0, compiled = 0, hits = 0;
    };
    Stats stats() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return {entries_.size(), compiled_, hits_};
    }

private:
    struct Entry {
        InputShapes shapes;
        std::shared_future<std::shared_ptr<Compiled>> compiled;
    };
    Compile compile_;
    size_t capacity_;
    mutable std::mutex mutex_;
    std::list<Entry> entries_;
    size_t compiled_ = 0, hits_ = 0;
};

}  // namespace mosaic
