#include "stress/stress_load.hpp"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace mosaic::test::stress {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kProblemsKept = 8;  // enough to see a pattern, few enough to read
constexpr auto kCallbackTimeout = std::chrono::seconds(120);

const char* const kModeNames[] = {"infer()", "start_async()+wait()", "start_async()+callback"};

void note(LoadResult& result, const std::string& problem) {
    if (result.problems.size() < kProblemsKept) result.problems.push_back(problem);
}

// Where two results first differ, for the failure message.
std::string first_difference(const OutputBytes& actual, const OutputBytes& expected) {
    if (actual.size() != expected.size())
        return std::to_string(actual.size()) + " outputs, serially " + std::to_string(expected.size());
    for (size_t o = 0; o < actual.size(); ++o) {
        if (actual[o].size() != expected[o].size())
            return "output " + std::to_string(o) + " has " + std::to_string(actual[o].size()) + " bytes, serially " +
                   std::to_string(expected[o].size());
        for (size_t b = 0; b < actual[o].size(); ++b)
            if (actual[o][b] != expected[o][b])
                return "output " + std::to_string(o) + " differs from the serial result at byte " + std::to_string(b) +
                       " of " + std::to_string(actual[o].size());
    }
    return "no difference";
}

}  // namespace

OutputBytes output_bytes(const InferRequest& request, size_t outputs) {
    OutputBytes out(outputs);
    for (size_t o = 0; o < outputs; ++o) {
        const Tensor t = request.get_output_tensor(o);
        const auto* p = static_cast<const unsigned char*>(t.data());
        out[o].assign(p, p + t.get_byte_size());
    }
    return out;
}

// One request shared by all threads, and the hand-off from its completion callback to the thread
// that started it.
struct StressLoad::Slot {
    std::mutex busy;  // held by the thread driving the request: a request serves one thread at a time

    std::mutex mutex;
    std::condition_variable completed_cv;
    bool completed = false;
    std::exception_ptr error;
    OutputBytes from_callback;

    size_t outputs = 0;
    // Declared last, so destroyed first: its destructor waits for a callback still returning,
    // which must find the members above alive.
    InferRequest request;

    explicit Slot(CompiledModel& compiled) : outputs(compiled.outputs().size()), request(compiled.create_infer_request()) {
        // Every start_async() completes here, on the device's thread: the outputs are read there,
        // as an application's callback does.
        request.set_callback([this](std::exception_ptr e) {
            OutputBytes out;
            if (!e) out = output_bytes(request, outputs);
            std::lock_guard<std::mutex> lock(mutex);
            from_callback = std::move(out);
            error = e;
            completed = true;
            completed_cv.notify_all();
        });
    }
};

struct StressLoad::Compiled {
    CompiledModel compiled;
    std::vector<std::unique_ptr<Slot>> slots;
    std::vector<OutputBytes> serial;  // by input variant
};

StressLoad::StressLoad(Core& core, const std::string& device) : models_(stress_models(core, device)) {
    for (const auto& m : models_) {
        auto c = std::make_unique<Compiled>();
        c->compiled = core.compile_model(m.model, device);
        for (int r = 0; r < kRequestsPerModel; ++r) c->slots.push_back(std::make_unique<Slot>(c->compiled));
        compiled_.push_back(std::move(c));
    }
}

StressLoad::~StressLoad() = default;

const CompiledModel& StressLoad::compiled(size_t model) const { return compiled_.at(model)->compiled; }

LoadResult StressLoad::compute_serial(int variants) {
    LoadResult result;
    const auto start = Clock::now();
    for (auto& c : compiled_) {
        InferRequest one = c->compiled.create_infer_request();
        c->serial.clear();
        for (int v = 0; v < variants; ++v) {
            const auto inputs = hetero::inputs_for(c->compiled, v);
            for (size_t k = 0; k < inputs.size(); ++k) one.set_input_tensor(k, inputs[k]);
            one.infer();
            c->serial.push_back(output_bytes(one, c->compiled.outputs().size()));
            ++result.requests;
        }
    }
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    variants_ = variants;
    return result;
}

LoadResult StressLoad::run(int threads, int64_t per_thread) {
    if (variants_ == 0) throw std::logic_error("StressLoad::run: compute_serial() first");
    std::vector<LoadResult> each(threads);
    const auto start = Clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { run_thread(t, per_thread, each[t]); });
    for (auto& th : pool) th.join();
    LoadResult total;
    total.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    for (const auto& r : each) {
        total.requests += r.requests;
        total.mismatches += r.mismatches;
        for (const auto& p : r.problems) note(total, p);
    }
    return total;
}

void StressLoad::run_thread(int thread, int64_t per_thread, LoadResult& result) {
    for (int64_t k = 0; k < per_thread; ++k) {
        const int64_t index = thread * per_thread + k;
        try {
            run_one(index, thread, result);
        } catch (const std::exception& e) {
            ++result.mismatches;  // a request that fails has no result to match
            note(result, "request " + std::to_string(index) + " (thread " + std::to_string(thread) + ") failed: " + e.what());
        }
    }
}

void StressLoad::run_one(int64_t index, int thread, LoadResult& result) {
    const size_t model = static_cast<size_t>(index) % compiled_.size();
    const int variant = static_cast<int>(index % variants_);
    const int mode = static_cast<int>((index / static_cast<int64_t>(compiled_.size())) % 3);
    Compiled& c = *compiled_[model];

    // Any free request of the model; when all are busy, wait for one.
    Slot* slot = nullptr;
    std::unique_lock<std::mutex> held;
    for (size_t r = 0; r < c.slots.size() && !slot; ++r) {
        Slot& s = *c.slots[(static_cast<size_t>(index) + r) % c.slots.size()];
        held = std::unique_lock<std::mutex>(s.busy, std::try_to_lock);
        if (held.owns_lock()) slot = &s;
    }
    if (!slot) {
        slot = c.slots[static_cast<size_t>(index) % c.slots.size()].get();
        held = std::unique_lock<std::mutex>(slot->busy);
    }

    const auto inputs = hetero::inputs_for(c.compiled, variant);
    for (size_t k = 0; k < inputs.size(); ++k) slot->request.set_input_tensor(k, inputs[k]);
    OutputBytes out;
    if (mode == 0) {
        slot->request.infer();
        out = output_bytes(slot->request, slot->outputs);
    } else if (mode == 1) {
        slot->request.start_async();
        slot->request.wait();
        out = output_bytes(slot->request, slot->outputs);
    } else {
        std::unique_lock<std::mutex> lock(slot->mutex);
        slot->completed = false;
        lock.unlock();
        slot->request.start_async();
        lock.lock();
        // No wait(): the request is reused as soon as its callback has handed the outputs over.
        if (!slot->completed_cv.wait_for(lock, kCallbackTimeout, [&] { return slot->completed; }))
            throw std::runtime_error("the completion callback did not come within 120 s");
        if (slot->error) std::rethrow_exception(slot->error);
        out = std::move(slot->from_callback);
    }
    ++result.requests;
    if (out == c.serial[static_cast<size_t>(variant)]) return;
    ++result.mismatches;
    note(result, "request " + std::to_string(index) + " (thread " + std::to_string(thread) + ", model " +
                     models_[model].name + ", input " + std::to_string(variant) + ", " + kModeNames[mode] +
                     "): " + first_difference(out, c.serial[static_cast<size_t>(variant)]));
}

}  // namespace mosaic::test::stress
