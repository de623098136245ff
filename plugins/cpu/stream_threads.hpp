// The threads the CPU device runs its parallel work from: one per execution stream, shared by the
// device's compiled models that are given every core (a model given part of them, to run beside
// others, has its own: cpu_device.cpp), alive as long as any of them. Inferences (sync or async, from
// any caller's thread) and compilations run their OpenMP regions from these threads only.
//
// Why not from the caller's thread: libgomp keeps a pool of worker threads for every thread that
// ever started a parallel region, for as long as that thread lives, and once the pools hold more
// threads than there are cores its barriers stop spinning and sleep in the kernel at every region.
// A compile (or a warm-up inference) on the application's thread followed by inferences on a
// request's own thread (start_async) made two pools: MobileNetV2 int8 at two threads on two cores
// took 4.4 ms an inference instead of 1.7. With the parallel work started from one thread per
// stream, the pools hold exactly the streams' threads.
//
// A stream runs one job at a time, in the order they came; a job a stream's own thread asks for
// runs in place (no wait on itself). Costs a hand-over to that thread and back per job, some
// microseconds, where the stream has more than one thread; single-threaded streams start no
// OpenMP pool and their inferences run on the caller's thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
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
    // Waits for the jobs queued and running, then joins the threads; must not run on one of them.
    ~StreamThreads() {
        for (auto& s : streams_) {
            {
                std::lock_guard<std::mutex> lock(s->mutex);
                s->stop = true;
            }
            s->wake.notify_all();
            if (s->thread.joinable()) s->thread.join();
        }
    }

    // Runs `work` on stream `index`'s thread (started on first use) and returns when it has
    // finished, rethrowing what it threw. Thread-safe.
    void run(size_t index, const std::function<void()>& work) {
        Stream& s = stream(index);
        if (current_stream() == &s) {
            work();
            return;
        }
        Job job{&work, nullptr, false};
        {
            std::lock_guard<std::mutex> lock(s.mutex);
            s.queue.push_back(&job);
        }
        s.wake.notify_one();
        std::unique_lock<std::mutex> lock(s.mutex);
        s.finished.wait(lock, [&] { return job.done; });
        if (job.error) std::rethrow_exception(job.error);
    }

private:
    struct Job {
        const std::function<void()>* work;
        std::exception_ptr error;
        bool done = false;
    };
    struct Stream {
        std::mutex mutex;
        std::condition_variable wake, finished;
        std::deque<Job*> queue;
        bool stop = false;
        std::thread thread;
    };

    // The stream whose thread this is, if it is one: its jobs run in place.
    static const Stream*& current_stream() {
        static thread_local const Stream* current = nullptr;
        return current;
    }

    Stream& stream(size_t index) {
        std::lock_guard<std::mutex> lock(mutex_);
        while (streams_.size() <= index) {
            auto s = std::make_unique<Stream>();
            Stream& ref = *s;
            s->thread = std::thread([&ref] { loop(ref); });
            streams_.push_back(std::move(s));
        }
        return *streams_[index];
    }

    static void loop(Stream& s) {
        current_stream() = &s;
        std::unique_lock<std::mutex> lock(s.mutex);
        while (true) {
            // Queued jobs run before a stop: their callers are waiting for them.
            s.wake.wait(lock, [&] { return s.stop || !s.queue.empty(); });
            if (s.queue.empty()) return;
            Job* job = s.queue.front();
            s.queue.pop_front();
            lock.unlock();
            try {
                (*job->work)();
            } catch (...) {
                job->error = std::current_exception();
            }
            lock.lock();
            job->done = true;
            s.finished.notify_all();
        }
    }

    std::mutex mutex_;  // guards streams_ (its growth); each Stream guards itself
    std::vector<std::unique_ptr<Stream>> streams_;
};

}  // namespace mosaic::cpu_plugin
