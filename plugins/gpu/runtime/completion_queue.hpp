// The thread on which a compiled model's asynchronous inferences end. OpenCL calls an event's
// callback on a driver thread, where no blocking OpenCL call may be made and the host's completion
// (which may start the request again, or run a user's callback) must not run: the callback only
// posts here, and this one thread collects the profile, releases the caller's buffers and tells the
// host, in the order the inferences finished.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace mosaic::gpu_plugin {

class CompletionQueue {
public:
    CompletionQueue() = default;
    CompletionQueue(const CompletionQueue&) = delete;
    CompletionQueue& operator=(const CompletionQueue&) = delete;

    // Runs what was posted, then stops. Every request of the model has ended by now (the SDK waits
    // for a started inference before a request goes, and requests go before their model).
    ~CompletionQueue() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        cv_.notify_all();
        if (thread_.joinable()) thread_.join();
    }

    // Starts the thread if it is not running; called where a thread may be made (not in a driver's
    // callback). Throws std::system_error when it cannot be.
    void start() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    }

    // Safe from any thread, a driver's callback included (after start()).
    void post(std::function<void()> work) {
        std::lock_guard<std::mutex> lock(mutex_);
        work_.push_back(std::move(work));
        cv_.notify_all();
    }

private:
    void run() {
        std::unique_lock<std::mutex> lock(mutex_);
        while (true) {
            cv_.wait(lock, [&] { return stop_ || !work_.empty(); });
            if (work_.empty()) return;
            std::function<void()> work = std::move(work_.front());
            work_.pop_front();
            lock.unlock();
            work();
            lock.lock();
        }
    }

    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::function<void()>> work_;
    std::thread thread_;
    bool stop_ = false;
};

}  // namespace mosaic::gpu_plugin
