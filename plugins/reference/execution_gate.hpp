// Emulates a device with a fixed number of execution queues (EXECUTION_UNITS): at most that many
// inferences run at once across every model compiled on the device; the others wait their turn.
// With 1, an emulated accelerator behaves like hardware with one queue, which is what makes
// overlap between devices (HETERO pipelining) visible in measurements on REFERENCE-backed devices.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace mosaic::reference_plugin {

class ExecutionGate {
public:
    // Holds one unit for its lifetime; `limit` 0 (or no gate) means no limit.
    class Pass {
    public:
        Pass(ExecutionGate* gate, int64_t limit) : gate_(limit > 0 ? gate : nullptr) {
            if (gate_) gate_->enter(limit);
        }
        ~Pass() {
            if (gate_) gate_->leave();
        }
        Pass(const Pass&) = delete;
        Pass& operator=(const Pass&) = delete;

    private:
        ExecutionGate* gate_;
    };

private:
    void enter(int64_t limit) {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return running_ < limit; });
        ++running_;
    }
    void leave() {
        std::lock_guard<std::mutex> lock(mutex_);
        --running_;
        cv_.notify_all();
    }

    std::mutex mutex_;
    std::condition_variable cv_;
    int64_t running_ = 0;
};

}  // namespace mosaic::reference_plugin
