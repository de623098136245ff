// BROKEN: a device that runs f32 Relu models (Parameter -> Relu -> Result) correctly, unless its
// FAULT property asks it to fail in one call the way real plugins fail: a segmentation fault, an
// abort, a hang, or allocating without bound. FAULT is "NONE" or "<how>@<call>", e.g.
// "SEGV@COMPILE", with <how> in SEGV, ABORT, HANG, LEAK and <call> in QUERY, COMPILE, INFER.
//
// Given as a compile or query property, a fault hits that one call (and, for INFER, the requests
// of that compiled model), so the next compile without it runs normally: what the isolation tests
// (tests/isolation) need to show that a fresh plugin process follows a dead one. In process, every
// fault but a hang kills the application, as it would in any in-process runtime: this plugin is
// meant to be loaded with "isolation": "process".
//
// MEET (a compile property, default 1) asks each inference to wait until that many are running at
// once in this process, and to fail after 3 s if they never are: how the isolation tests see that
// requests on several threads are served at the same time, not one after another, without timing.
#include <mosaic/sdk/plugin.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace {

using namespace mosaic;
namespace sp = mosaic::sdk::standard_properties;

const std::vector<std::string> kFaults = {"NONE",        "SEGV@QUERY",  "SEGV@COMPILE",  "SEGV@INFER",
                                          "ABORT@QUERY", "ABORT@COMPILE", "ABORT@INFER", "HANG@QUERY",
                                          "HANG@COMPILE", "HANG@INFER",  "LEAK@QUERY",   "LEAK@COMPILE",
                                          "LEAK@INFER"};

// Fails as `fault` says when it names `call`; returns otherwise.
void maybe_fail(const std::string& fault, const std::string& call) {
    const size_t at = fault.find('@');
    if (at == std::string::npos || fault.substr(at + 1) != call) return;
    const std::string how = fault.substr(0, at);
    if (how == "SEGV") {
        // Both volatile: the compiler can neither see that the address is 0 nor drop the store.
        volatile int* volatile nowhere = nullptr;
        *nowhere = 1;
    } else if (how == "ABORT") {
        std::abort();
    } else if (how == "HANG") {
        for (;;) pause();
    } else if (how == "LEAK") {
        // Touch every page, so the memory is really taken, and never free it.
        static std::vector<char*> leaked;
        for (;;) {
            constexpr size_t chunk = size_t{64} << 20;
            char* block = new char[chunk];
            std::memset(block, 1, chunk);
            leaked.push_back(block);
        }
    }
}

// Waits until `count` inferences are inside meet() at once; throws, saying how many came, if
// they are not within 3 s.
void meet(int64_t count) {
    static std::mutex mutex;
    static std::condition_variable arrived;
    static int64_t inside = 0, peak = 0;
    std::unique_lock<std::mutex> lock(mutex);
    ++inside;
    peak = std::max(peak, inside);
    arrived.notify_all();
    const bool met = arrived.wait_for(lock, std::chrono::seconds(3), [&] { return peak >= count; });
    --inside;
    if (!met)
        throw sdk::Error(MOSAIC_ERROR_GENERAL, "only " + std::to_string(peak) + " of " + std::to_string(count) +
                                                   " inferences ran at once within 3 s");
}

bool relu_model(const sdk::GraphView& g, size_t n) {
    const std::string type = g.type(n);
    if (type != "Parameter" && type != "Relu" && type != "Result") return false;
    for (size_t o = 0; o < g.output_count(n); ++o)
        if (g.output_type(n, o) != ElementType::f32) return false;
    return true;
}

class BrokenRequest : public sdk::InferRequest {
public:
    BrokenRequest(std::string fault, int64_t meet) : fault_(std::move(fault)), meet_(meet) {}
    void infer(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) override {
        maybe_fail(fault_, "INFER");
        if (meet_ > 1) meet(meet_);
        const float* in = static_cast<const float*>(inputs.at(0).data);
        float* out = static_cast<float*>(outputs.at(0).data);
        for (int64_t i = 0; i < shape_size(outputs.at(0).shape); ++i) out[i] = in[i] > 0.f ? in[i] : 0.f;
    }

private:
    std::string fault_;
    int64_t meet_;
};

class BrokenCompiled : public sdk::CompiledModel {
public:
    BrokenCompiled(std::string fault, int64_t meet) : fault_(std::move(fault)), meet_(meet) {}
    std::unique_ptr<sdk::InferRequest> create_request() override {
        return std::make_unique<BrokenRequest>(fault_, meet_);
    }

private:
    std::string fault_;
    int64_t meet_;
};

class BrokenDevice : public sdk::Device {
public:
    explicit BrokenDevice(const std::string& name)
        : Device(name, {sp::full_device_name("Test device that crashes, aborts, hangs or leaks on request"),
                        {"FAULT", sdk::PropertyKind::choice, "NONE", kFaults, false, 0,
                         "how and in which call to fail: NONE or <SEGV|ABORT|HANG|LEAK>@<QUERY|COMPILE|INFER>"},
                        {"MEET", sdk::PropertyKind::integer, 1, {}, false, 1,
                         "each inference waits (3 s at most) until this many run at once"}}) {}

    std::vector<Support> query(const sdk::GraphView& graph, const nlohmann::json& config) override {
        maybe_fail(config.at("FAULT").get<std::string>(), "QUERY");
        std::vector<Support> result(graph.node_count());
        for (size_t n = 0; n < result.size(); ++n)
            result[n] = relu_model(graph, n) ? Support{true, ""} : Support{false, "BROKEN runs f32 Relu only"};
        return result;
    }

    std::unique_ptr<sdk::CompiledModel> compile(const sdk::GraphView& graph, const nlohmann::json& config) override {
        const std::string fault = config.at("FAULT").get<std::string>();
        maybe_fail(fault, "COMPILE");
        for (size_t n = 0; n < graph.node_count(); ++n)
            if (!relu_model(graph, n))
                throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, "node '" + graph.node_name(n) + "': BROKEN runs f32 Relu only");
        return std::make_unique<BrokenCompiled>(fault, config.at("MEET").get<int64_t>());
    }
};

}  // namespace

MOSAIC_DEFINE_PLUGIN(BrokenDevice, "mosaic_test_crashing", "0.1.0")
