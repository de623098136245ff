// A thread that runs jobs one at a time: asynchronous inference for a request whose device only
// computes synchronously. The SDK gives every plugin request one (plugin.hpp), and the host one
// for a plugin without start_async, so the same code runs both.
//
//   Worker worker;
//   worker.post([&] { request.infer(...); done(); });   // returns at once
//
// A job may post the next one before it returns (a completion callback that starts the request
// again): it runs after this one. The thread starts on the first post; the destructor waits for
// what is posted and running, then joins it, so it must not run on the worker's own thread.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace mosaic::sdk {

class Worker {
public:
    Worker() = default;
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;

    ~Worker() {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            idle_.wait(lock, [&] { return !job_ && !running_; });
            stop_ = true;
        }
        wake_.notify_all();
        if (thread_.joinable()) thread_.join();
    }

    // Queues `job` (which must not throw). Throws std::logic_error when a job is already queued,
    // std::system_error when no thread can be started (nothing is queued then).
    void post(std::function<void()> job) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (job_) throw std::logic_error("a job is already queued on this worker");
        if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
        job_ = std::move(job);
        wake_.notify_all();
    }

private:
    void loop() {
        std::unique_lock<std::mutex> lock(mutex_);
        while (true) {
            wake_.wait(lock, [&] { return stop_ || job_; });
            if (!job_) return;  // stopping, nothing queued
            std::function<void()> job = std::move(job_);
            job_ = nullptr;
            running_ = true;
            lock.unlock();
            job();
            job = nullptr;  // what it holds goes before the worker counts as idle
            lock.lock();
            running_ = false;
            idle_.notify_all();
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_, idle_;
    std::function<void()> job_;
    bool running_ = false, stop_ = false;
    std::thread thread_;
};

}  // namespace mosaic::sdk
