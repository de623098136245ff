// Admits at most one inference per execution stream of a compiled model. A stream is a set of
// threads that runs one inference at a time, so a request that finds every stream busy waits until
// one is free. Waiters are admitted in the order they arrived (a request is never overtaken
// indefinitely by later ones) and sleep on a condition variable rather than spin, since a wait lasts
// a whole inference. The Slot that admission returns frees its stream when destroyed, so neither an
// exception inside the inference nor a destroyed request can keep a stream.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>

namespace mosaic::cpu_plugin {

class StreamLimiter {
public:
    // One stream, held while the Slot lives.
    class Slot {
    public:
        Slot(Slot&& other) noexcept : owner_(std::exchange(other.owner_, nullptr)) {}
        Slot& operator=(Slot&&) = delete;
        Slot(const Slot&) = delete;
        Slot& operator=(const Slot&) = delete;
        ~Slot() {
            if (owner_) owner_->release();
        }

    private:
        friend class StreamLimiter;
        explicit Slot(StreamLimiter* owner) : owner_(owner) {}
        StreamLimiter* owner_;
    };

    explicit StreamLimiter(int streams) : streams_(streams < 1 ? 1 : static_cast<uint64_t>(streams)) {}
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
        return Slot(this);
    }

    // Requests blocked in acquire() now; for tests and diagnostics.
    size_t waiting() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return waiting_;
    }

private:
    void release() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
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
};

}  // namespace mosaic::cpu_plugin
