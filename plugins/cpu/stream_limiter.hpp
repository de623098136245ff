// Admits at most one inference per execution stream of a compiled model. A stream is a set of
// threads that runs one inference at a time, so a request that finds every stream busy waits until
// one is free. Waiters are admitted in the order they arrived (a request is never overtaken
// indefinitely by later ones) and sleep on a condition variable rather than spin, since a wait lasts
// a whole inference. The Slot that admission returns names its stream (the lowest free index: the
// thread it runs on, stream_threads.hpp) and frees it when destroyed, so neither an exception
// inside the inference nor a destroyed request can keep a stream.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace mosaic::cpu_plugin {

class StreamLimiter {
public:
    // One stream, held while the Slot lives.
    class Slot {
    public:
        Slot(Slot&& other) noexcept : owner_(std::exchange(other.owner_, nullptr)), index_(other.index_) {}
        Slot& operator=(Slot&&) = delete;
        Slot(const Slot&) = delete;
        Slot& operator=(const Slot&) = delete;
        ~Slot() {
            if (owner_) owner_->release(index_);
        }
        size_t index() const { return index_; }  // which stream, 0 .. streams - 1

    private:
        friend class StreamLimiter;
        Slot(StreamLimiter* owner, size_t index) : owner_(owner), index_(index) {}
        StreamLimiter* owner_;
        size_t index_;
    };

    explicit StreamLimiter(int streams)
        : streams_(streams < 1 ? 1 : static_cast<uint64_t>(streams)), busy_(static_cast<size_t>(streams_), false) {}
    StreamLimiter(const StreamLimiter&) = delete;
    StreamLimiter& operator=(const StreamLimiter&) = delete;

    int streams() const { return static_cast<int>(streams_); }

    // Blocks until a stream is free. Thread-safe. Every Slot must be destroyed before the limiter.
    [[nodiscard]] Slot acquire() {
        std::unique_lock<std::mutex> lock(mutex_);
        // Tickets are admitted in the order they were drawn: ticket t runs once at most streams - 1
        // of the tickets before it still hold a stream, i.e. once t < released + streams.
        const uint64_t ticket = next_ticket_++;
        ++waiting_;
        free_.wait(lock, [&] { return ticket < released_ + streams_; });
        --waiting_;
        size_t index = 0;  // at most streams - 1 others hold one: a stream is free
        while (busy_[index]) ++index;
        busy_[index] = true;
        return Slot(this, index);
    }

    // Requests blocked in acquire() now; for tests and diagnostics.
    size_t waiting() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return waiting_;
    }

private:
    void release(size_t index) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            busy_[index] = false;
            ++released_;
        }
        // Every waiter rechecks: the one whose ticket became admissible is not known here, and
        // waiters are few (the requests beyond the streams).
        free_.notify_all();
    }

    const uint64_t streams_;
    mutable std::mutex mutex_;
    std::condition_variable free_;
    uint64_t next_ticket_ = 0;  // tickets drawn so far
    uint64_t released_ = 0;     // slots given back so far
    size_t waiting_ = 0;
    std::vector<bool> busy_;    // per stream: held by a Slot
};

}  // namespace mosaic::cpu_plugin
