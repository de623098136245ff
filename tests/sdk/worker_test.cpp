// The SDK's Worker (mosaic/sdk/worker.hpp), which runs the asynchronous inferences of every SDK
// plugin and of the host for plugins without start_async: jobs in order on one thread, a job
// posting the next, one job queued at a time, the destructor waiting for what is posted.
#include <mosaic/sdk/worker.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <future>
#include <thread>

namespace mosaic::sdk {
namespace {

TEST(Worker, RunsAJobOnAThreadOfItsOwn) {
    Worker worker;
    std::promise<std::thread::id> ran;
    worker.post([&] { ran.set_value(std::this_thread::get_id()); });
    EXPECT_NE(ran.get_future().get(), std::this_thread::get_id());
}

TEST(Worker, AJobMayPostTheNextAndTheDestructorRunsWhatIsPosted) {
    std::atomic<int> count{0};
    std::function<void()> again;  // outlives the worker, whose jobs it is
    {
        Worker worker;
        again = [&] {
            if (++count < 100) worker.post(again);  // a completion that starts the request again
        };
        worker.post(again);
    }  // waits for the 100 jobs
    EXPECT_EQ(count.load(), 100);
}

TEST(Worker, ASecondJobWhileOneIsQueuedIsRefused) {
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    std::promise<void> started;
    Worker worker;  // declared last: it waits for the job that reads the futures above before they go
    worker.post([&] {
        started.set_value();
        released.wait();
    });
    started.get_future().wait();
    worker.post([] {});                               // queued behind the running one
    EXPECT_THROW(worker.post([] {}), std::logic_error);  // a request runs one inference at a time
    release.set_value();
}

}  // namespace
}  // namespace mosaic::sdk
