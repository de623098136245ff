#include "runtime/request_reaper.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <new>
#include <thread>

namespace mosaic::detail {

namespace {

class Reaper {
public:
    ~Reaper() {
        // Static destruction at exit: release what is queued, then stop, so no request is destroyed
        // by a thread that outlives the process's own teardown.
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        cv_.notify_all();
        if (thread_.joinable()) thread_.join();
    }

    void push(std::shared_ptr<void> last) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
        queue_.push_back(std::move(last));
        cv_.notify_one();
    }

private:
    void run() {
        std::unique_lock<std::mutex> lock(mutex_);
        while (true) {
            cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
            if (queue_.empty()) return;  // stop_ and nothing left
            std::shared_ptr<void> doomed = std::move(queue_.front());
            queue_.pop_front();
            lock.unlock();
            doomed.reset();  // may run a request's destructor, which may take a while
            lock.lock();
        }
    }

    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::shared_ptr<void>> queue_;
    std::thread thread_;
    bool stop_ = false;
};

}  // namespace

void reap(std::shared_ptr<void> last) noexcept {
    static Reaper reaper;
    try {
        reaper.push(std::move(last));
    } catch (...) {
        // No thread or no memory for the queue (nothing else fails here): leaking the request is
        // better than destroying it on the thread its destructor joins.
        new (std::nothrow) std::shared_ptr<void>(std::move(last));
    }
}

}  // namespace mosaic::detail
