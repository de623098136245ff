// The soak driver of run.sh: one long-running process doing N inferences of one model with a few
// requests kept in flight (each completion callback starts its request again, as a server does),
// sampling its own resident set size (VmRSS of /proc/self/status) every K inferences.
//   soak MODEL DEVICE INFERENCES [EVERY [REQUESTS [REFERENCE_OPS]]]
// REFERENCE_OPS: op types (comma-separated) given the affinity REFERENCE, every other op the one
// HETERO's query chooses, so that a device which runs the whole model (CPU) still hands tensors
// across. Prints "inferences,seconds,rss_kib" per sample (CSV, with a header) on stdout and the
// progress on stderr; asserts nothing: run.sh turns the samples into figures and a plot.
#include <mosaic/mosaic.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace mosaic;
using Clock = std::chrono::steady_clock;

namespace {

int64_t rss_kib() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6);
    return -1;
}

std::set<std::string> split_list(const std::string& text) {
    std::set<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.insert(item);
    return out;
}

void place_on_reference(Core& core, const std::shared_ptr<Model>& model, const std::string& device,
                        const std::set<std::string>& types) {
    SupportedOpsMap affinity = core.query_model(model, device);
    for (Node* node : model->get_ops()) {
        const std::string& name = node->get_friendly_name();
        node->get_rt_info()["affinity"] = types.count(node->get_type_name()) ? "REFERENCE" : affinity[name];
    }
}

// Values in [0, 1) for f32 inputs, zeros for any other type.
Tensor filled(const PortDesc& port, int seed) {
    Tensor t(port.type, port.shape);
    if (port.type == ElementType::f32)
        for (size_t i = 0; i < t.get_size(); ++i) t.data<float>()[i] = static_cast<float>((i * 7919 + seed * 31) % 255) / 255.0f;
    return t;
}

struct Sample {
    int64_t inferences = 0;
    double seconds = 0;
    int64_t rss_kib = 0;
};

// Keeps `requests` in flight until `total` inferences have completed.
class Soak {
public:
    Soak(CompiledModel& compiled, int requests, int64_t total, int64_t every)
        : total_(total), every_(every), samples_(static_cast<size_t>(total / every)) {
        for (int r = 0; r < requests; ++r) {
            requests_.push_back(compiled.create_infer_request());
            for (size_t i = 0; i < compiled.inputs().size(); ++i) requests_.back().set_input_tensor(i, filled(compiled.inputs()[i], r));
        }
        for (size_t r = 0; r < requests_.size(); ++r) requests_[r].set_callback([this, r](std::exception_ptr e) { completed(r, e); });
    }

    // Returns the samples, or throws the first inference error.
    std::vector<Sample> run() {
        start_ = Clock::now();
        started_ = static_cast<int64_t>(requests_.size());
        for (auto& r : requests_) r.start_async();
        {
            std::unique_lock<std::mutex> lock(mutex_);
            done_cv_.wait(lock, [&] { return finished_ == static_cast<int64_t>(requests_.size()); });
        }
        for (auto& r : requests_) r.wait();
        if (error_) std::rethrow_exception(error_);
        return samples_;
    }

private:
    void completed(size_t request, std::exception_ptr error) {
        const int64_t done = ++completed_;
        if (done % every_ == 0 && done / every_ <= static_cast<int64_t>(samples_.size())) {
            // Each sample is written once, by the callback that completes its count.
            samples_[static_cast<size_t>(done / every_ - 1)] = {done, std::chrono::duration<double>(Clock::now() - start_).count(),
                                                                rss_kib()};
            if (done % (every_ * 10) == 0) std::fprintf(stderr, "%lld inferences\n", static_cast<long long>(done));
        }
        if (error) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!error_) error_ = error;
        }
        if (!error && started_.fetch_add(1) < total_) {
            requests_[request].start_async();  // from the callback, as a server keeps a request busy
            return;
        }
        std::lock_guard<std::mutex> lock(mutex_);
        ++finished_;
        done_cv_.notify_all();
    }

    const int64_t total_, every_;
    std::vector<InferRequest> requests_;
    std::vector<Sample> samples_;  // allocated up front: the driver's own memory stays flat
    Clock::time_point start_;
    std::atomic<int64_t> started_{0}, completed_{0};
    std::mutex mutex_;
    std::condition_variable done_cv_;
    int64_t finished_ = 0;  // requests that stopped
    std::exception_ptr error_;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: soak MODEL DEVICE INFERENCES [EVERY [REQUESTS [REFERENCE_OPS]]]\n");
        return 2;
    }
    const std::string path = argv[1], device = argv[2];
    const int64_t total = std::atoll(argv[3]), every = argc > 4 ? std::atoll(argv[4]) : 1000;
    const int requests = argc > 5 ? std::atoi(argv[5]) : 4;
    try {
        Core core;
        auto model = core.read_model(path);
        if (argc > 6) place_on_reference(core, model, device, split_list(argv[6]));
        CompiledModel compiled = core.compile_model(model, device);
        if (device.rfind("HETERO", 0) == 0)
            std::fprintf(stderr, "%s subgraphs on %s\n", compiled.get_property("HETERO_NUMBER_OF_SUBGRAPHS").dump().c_str(),
                         device.c_str());
        Soak soak(compiled, requests, total, every);
        std::printf("inferences,seconds,rss_kib\n0,0,%lld\n", static_cast<long long>(rss_kib()));
        for (const Sample& s : soak.run())
            std::printf("%lld,%.3f,%lld\n", static_cast<long long>(s.inferences), s.seconds, static_cast<long long>(s.rss_kib));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "soak: %s\n", e.what());
        return 1;
    }
    return 0;
}
