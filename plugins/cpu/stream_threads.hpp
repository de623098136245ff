// The threads the CPU device runs its parallel work from, shared by its compiled models: an
// inference whose stream has several threads (sync or async, from any caller's thread) and every
// compilation start their OpenMP regions from one of these, the lowest-numbered that is idle
// (started when none is), never from the caller's thread.
//
// Why not from the caller's thread: libgomp keeps a pool of worker threads for every thread that
// ever started a parallel region, for as long as that thread lives, and once the pools hold more
// threads than there are cores its barriers stop spinning and sleep in the kernel at every region.
// A compile (or a warm-up inference) on the application's thread followed by inferences on a
// request's own thread (start_async) made two pools: MobileNetV2 int8 at two threads on two cores
// took 4.4 ms an inference instead of 1.7. Taking the lowest idle thread keeps as many pools as
// inferences ever ran at once (one, for a model run one inference at a time, or an LLM's
// specializations run one after another), and lets unrelated models still run side by side.
//
// A job one of these threads asks for runs in place (no wait on itself). The hand-over costs some
// microseconds per job; single-threaded streams start no OpenMP pool, and their inferences run on
// the caller's thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace mosaic::cpu_plugin {

class StreamThreads {
public:
    StreamThreads() = default;
    StreamThreads(const StreamThreads&) = delete;
    StreamThreads& operator=(const StreamThreads&) = delete;
    // Joins the threads, which are idle by then: every run() has returned (its caller holds what
    // owns this). Never runs on one of them: a job holds no owner of this.
    ~StreamThreads() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        for (auto& w : workers_) w->wake.notify_all();
        for (auto& w : workers_)
            if (w->thread.joinable()) w->thread.join();
    }

    // Runs `work` on the lowest-numbered idle thread (a new one when all are busy) and returns
    // when it has finished, rethrowing what it threw. Thread-safe.
    void run(const std::function<void()>& work) {
        if (current_worker()) {
            work();
            return;
        }
        std::unique_lock<std::mutex> lock(mutex_);
        Worker* w = nullptr;
        for (auto& candidate : workers_)
            if (!candidate->job) {
                w = candidate.get();
                break;
            }
        if (!w) {
            workers_.reserve(workers_.size() + 1);  // no throw between starting the thread and keeping it
            auto made = std::make_unique<Worker>();
            Worker& ref = *made;
            made->thread = std::thread([this, &ref] { loop(ref); });
            workers_.push_back(std::move(made));
            w = &ref;
        }
        Job job{&work, nullptr, false};
        w->job = &job;
        w->wake.notify_one();
        finished_.wait(lock, [&] { return job.done; });
        if (job.error) std::rethrow_exception(job.error);
    }

    // Runs `work`, which starts OpenMP teams of `team` threads: in place for one (no pool is
    // started), else as run() does.
    void run_team(int team, const std::function<void()>& work) {
        if (team > 1)
            run(work);
        else
            work();
    }

    // Threads started so far (for tests).
    size_t threads() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return workers_.size();
    }

private:
    struct Job {
        const std::function<void()>* work;
        std::exception_ptr error;
        bool done = false;
    };
    struct Worker {
        std::condition_variable wake;
        Job* job = nullptr;  // set while busy: from run() until the job is done
        std::thread thread;
    };

    // Whether this thread is one of the workers: its jobs run in place.
    static bool& current_worker() {
        static thread_local bool is_worker = false;
        return is_worker;
    }

    void loop(Worker& w) {
        current_worker() = true;
        std::unique_lock<std::mutex> lock(mutex_);
        while (true) {
            w.wake.wait(lock, [&] { return stop_ || w.job; });
            if (!w.job) return;  // stopping, idle
            Job* job = w.job;
            lock.unlock();
            try {
                (*job->work)();
            } catch (...) {
                job->error = std::current_exception();
            }
            lock.lock();
            job->done = true;
            w.job = nullptr;
            finished_.notify_all();
        }
    }

    mutable std::mutex mutex_;  // guards workers_, each worker's job and every job's done
    std::condition_variable finished_;
    std::vector<std::unique_ptr<Worker>> workers_;
    bool stop_ = false;
};

}  // namespace mosaic::cpu_plugin
