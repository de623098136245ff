// mosaic benchmark -m MODEL -d DEVICE [-niter N | -t SEC] [-nireq N] [-api sync|async]
//                  [-hint latency|throughput|none] [--config FILE.json] [--report FILE.json]
//
// Measures like OpenVINO's benchmark_app: one warm-up inference (reported, not counted), then
// either one request in a loop (sync) or nireq requests kept in flight with completion callbacks
// (async). Throughput is 1000 / median latency for sync, and iterations / wall time for async.
#include "commands.hpp"
#include "common.hpp"
#include "shapes.hpp"
#include "config_file.hpp"
#include "inputs.hpp"
#include "progress.hpp"
#include "split_summary.hpp"
#include "statistics.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>

namespace mosaic::cli {

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kDefaultSeconds = 60;      // benchmark_app's default when neither -niter nor -t is given
constexpr double kProgressAfterSeconds = 2;  // shorter runs get no progress bar

struct BenchmarkOptions {
    std::vector<std::string> shapes;  // --shape
    std::string model;
    std::string device;
    int64_t niter = 0;
    double seconds = 0;
    int64_t nireq = 0;
    std::string api = "async";
    std::string hint;  // empty: THROUGHPUT for async, LATENCY for sync, where the device supports it
    std::string config;
    std::string report;
};

double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string fmt_ms(double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.2f ms", v);
    return buf;
}

std::string fmt_seconds(double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%g s", v);
    return buf;
}

// When to stop: after `niter` iterations, or after `seconds`, whichever comes first.
struct StopRule {
    int64_t niter = 0;
    double seconds = 0;

    bool done(int64_t iterations, Clock::time_point start) const {
        if (niter > 0 && iterations >= niter) return true;
        return seconds > 0 && ms_between(start, Clock::now()) >= seconds * 1000;
    }
    double fraction(int64_t iterations, Clock::time_point start) const {
        double f = 0;
        if (niter > 0) f = static_cast<double>(iterations) / static_cast<double>(niter);
        if (seconds > 0) f = std::max(f, ms_between(start, Clock::now()) / (seconds * 1000));
        return f;
    }
};

struct RunResult {
    std::vector<double> latencies_ms;
    double duration_ms = 0;
};

RunResult run_sync(InferRequest& request, const StopRule& stop, ProgressBar& progress) {
    RunResult r;
    const Clock::time_point start = Clock::now();
    Clock::time_point end = start;
    for (int64_t it = 0; !stop.done(it, start); ++it) {
        const Clock::time_point t0 = Clock::now();
        request.infer();
        end = Clock::now();
        r.latencies_ms.push_back(ms_between(t0, end));
        progress.update(stop.fraction(it + 1, start));
    }
    r.duration_ms = ms_between(start, end);
    return r;
}

// The requests that are free to start, filled by the completion callbacks (as benchmark_app's
// InferRequestsQueue does): the main thread restarts requests, callbacks only record.
class RequestPool {
public:
    explicit RequestPool(size_t size) : started_at_(size) {
        for (size_t i = 0; i < size; ++i) idle_.push_back(i);
    }

    void completed(size_t id, std::exception_ptr error) {
        const Clock::time_point now = Clock::now();
        std::lock_guard<std::mutex> lock(mutex_);
        if (error && !error_) error_ = error;
        latencies_ms_.push_back(ms_between(started_at_[id], now));
        last_end_ = now;
        idle_.push_back(id);
        --in_flight_;
        cv_.notify_all();
    }

    // Blocks until a request is idle; returns false when a request failed.
    bool take_idle(size_t& id) {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return !idle_.empty() || error_; });
        if (error_) return false;
        id = idle_.front();
        idle_.pop_front();
        return true;
    }

    void mark_started(size_t id) {
        std::lock_guard<std::mutex> lock(mutex_);
        started_at_[id] = Clock::now();
        ++in_flight_;
    }

    // A request taken with take_idle() that will not run after all.
    void give_back(size_t id) {
        std::lock_guard<std::mutex> lock(mutex_);
        idle_.push_back(id);
    }

    void fail(std::exception_ptr error) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = error;
    }

    void wait_all() {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return in_flight_ == 0; });
    }

    std::exception_ptr error() {
        std::lock_guard<std::mutex> lock(mutex_);
        return error_;
    }
    std::vector<double> latencies() {
        std::lock_guard<std::mutex> lock(mutex_);
        return latencies_ms_;
    }
    Clock::time_point last_end() {
        std::lock_guard<std::mutex> lock(mutex_);
        return last_end_;
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<size_t> idle_;
    std::vector<Clock::time_point> started_at_;
    std::vector<double> latencies_ms_;
    Clock::time_point last_end_{};
    size_t in_flight_ = 0;
    std::exception_ptr error_;
};

RunResult run_async(std::vector<InferRequest>& requests, const StopRule& stop, ProgressBar& progress) {
    // Declared before the callbacks are set and outliving them: every request is idle again (and
    // waited for) before this function returns.
    RequestPool pool(requests.size());
    for (size_t i = 0; i < requests.size(); ++i)
        requests[i].set_callback([&pool, i](std::exception_ptr e) { pool.completed(i, e); });

    const Clock::time_point start = Clock::now();
    int64_t started = 0;
    size_t id = 0;
    while (!stop.done(started, start) && pool.take_idle(id)) {
        try {
            requests[id].wait();  // the previous run's callback has fired; let the request settle
            pool.mark_started(id);
        } catch (...) {
            pool.give_back(id);
            pool.fail(std::current_exception());
            break;
        }
        try {
            requests[id].start_async();
        } catch (...) {
            pool.completed(id, std::current_exception());  // undo mark_started, record the error
            break;
        }
        ++started;
        progress.update(stop.fraction(started, start));
    }
    pool.wait_all();
    for (auto& r : requests) {
        try {
            r.wait();
        } catch (...) {
            pool.fail(std::current_exception());
        }
        r.set_callback([](std::exception_ptr) {});
    }
    if (std::exception_ptr e = pool.error()) std::rethrow_exception(e);

    RunResult r;
    r.latencies_ms = pool.latencies();
    r.duration_ms = ms_between(start, pool.last_end());
    return r;
}

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

bool device_supports(Core& core, const std::string& device, const std::string& key) {
    try {
        const auto names = property_names(core.get_property(device, properties::supported_properties));
        return std::find(names.begin(), names.end(), key) != names.end();
    } catch (const std::exception&) {
        return false;  // a composite device string (HETERO:...) may have no properties of its own
    }
}

// The PERFORMANCE_HINT to compile with, or empty for none.
std::string choose_hint(Core& core, const BenchmarkOptions& opts, const AnyMap& props) {
    if (!opts.hint.empty()) return opts.hint == "none" ? "" : upper(opts.hint);
    if (props.count(properties::hint::performance_mode.name)) return "";  // the config file decides
    const std::string hint = opts.api == "sync" ? "LATENCY" : "THROUGHPUT";
    return device_supports(core, opts.device, properties::hint::performance_mode.name) ? hint : "";
}

int64_t request_count(const BenchmarkOptions& opts, const CompiledModel& compiled) {
    if (opts.api == "sync") {
        if (opts.nireq > 1) warn("-nireq " + std::to_string(opts.nireq) + " is ignored with -api sync (one request)");
        return 1;
    }
    if (opts.nireq > 0) return opts.nireq;
    try {
        const PropertyValue v = compiled.get_property(properties::optimal_number_of_infer_requests);
        if (v.is_number_integer() && v.get<int64_t>() > 0) return v.get<int64_t>();
    } catch (const std::exception&) {
    }
    return 1;
}

void write_report(const std::string& path, const PropertyValue& report) {
    std::ofstream out(path, std::ios::trunc);
    if (!out) throw UsageError("cannot write report file '" + path + "'");
    out << report.dump(2) << "\n";
    out.close();
    if (!out) throw UsageError("error writing report file '" + path + "'");
}

void run_benchmark(const BenchmarkOptions& opts) {
    if (opts.niter < 0) throw UsageError("-niter must be positive, got " + std::to_string(opts.niter));
    if (opts.seconds < 0) throw UsageError("-t must be positive");
    if (opts.nireq < 0) throw UsageError("-nireq must be positive, got " + std::to_string(opts.nireq));
    AnyMap props = opts.config.empty() ? AnyMap{} : load_config(opts.config, opts.device);

    Core core;
    Clock::time_point t0 = Clock::now();
    const std::shared_ptr<Model> model = load_model(core, opts.model, opts.shapes);
    const double read_ms = ms_between(t0, Clock::now());

    const std::string hint = choose_hint(core, opts, props);
    if (!hint.empty()) props[properties::hint::performance_mode.name] = hint;
    t0 = Clock::now();
    CompiledModel compiled = compile_model(core, model, opts.device, props);
    const double compile_ms = ms_between(t0, Clock::now());

    const int64_t nireq = request_count(opts, compiled);
    std::vector<InferRequest> requests;
    for (int64_t i = 0; i < nireq; ++i) {
        requests.push_back(compiled.create_infer_request());
        fill_inputs(requests.back(), compiled);
    }

    StopRule stop{opts.niter, opts.seconds};
    if (stop.niter == 0 && stop.seconds == 0) stop.seconds = kDefaultSeconds;
    if (opts.api == "async" && stop.niter > 0 && stop.niter % nireq) {
        const int64_t aligned = (stop.niter + nireq - 1) / nireq * nireq;
        warn("number of iterations aligned to the number of requests, from " + std::to_string(stop.niter) + " to " +
             std::to_string(aligned));
        stop.niter = aligned;
    }

    std::cout << "Model: " << opts.model << " (" << model->get_friendly_name() << ")\n"
              << "Device: " << opts.device << "\n"
              << "API: " << opts.api << ", " << nireq << " infer request" << (nireq > 1 ? "s" : "")
              << ", PERFORMANCE_HINT: " << (hint.empty() ? "(not set)" : hint) << "\n"
              << "Read model in " << fmt_ms(read_ms) << "\n"
              << "Compiled in " << fmt_ms(compile_ms) << "\n";
    if (const std::string split = split_summary(compiled); !split.empty()) std::cout << split << "\n";
    std::cout << "Benchmarking for "
              << (stop.niter > 0 ? std::to_string(stop.niter) + " iterations" : "")
              << (stop.niter > 0 && stop.seconds > 0 ? " or " : "")
              << (stop.seconds > 0 ? fmt_seconds(stop.seconds) : "") << std::endl;

    // Warm-up: the first inference pays for lazy allocations; it is reported, not counted.
    t0 = Clock::now();
    requests[0].infer();
    const double first_ms = ms_between(t0, Clock::now());
    std::cout << "First inference took " << fmt_ms(first_ms) << " (warm-up, excluded)" << std::endl;

    const double per_round_s = first_ms / 1000.0 / static_cast<double>(opts.api == "sync" ? 1 : nireq);
    double expected_s = stop.niter > 0 ? per_round_s * static_cast<double>(stop.niter) : stop.seconds;
    if (stop.seconds > 0) expected_s = std::min(expected_s, stop.seconds);
    ProgressBar progress(expected_s > kProgressAfterSeconds);

    const RunResult result = opts.api == "sync" ? run_sync(requests[0], stop, progress)
                                                : run_async(requests, stop, progress);
    progress.finish();
    if (result.latencies_ms.empty()) throw std::runtime_error("no inference completed");

    const LatencyStats lat = latency_stats(result.latencies_ms);
    const int64_t count = static_cast<int64_t>(result.latencies_ms.size());
    const double fps = opts.api == "sync" ? 1000.0 / lat.median
                                          : static_cast<double>(count) * 1000.0 / std::max(result.duration_ms, 1e-9);
    char fps_text[32];
    std::snprintf(fps_text, sizeof(fps_text), "%.2f", fps);

    std::cout << "Count: " << count << " iterations\n"
              << "Duration: " << fmt_ms(result.duration_ms) << "\n"
              << "Latency:\n"
              << "    Median: " << fmt_ms(lat.median) << "\n"
              << "    Average: " << fmt_ms(lat.average) << "\n"
              << "    Min: " << fmt_ms(lat.min) << "\n"
              << "    Max: " << fmt_ms(lat.max) << "\n"
              << "Throughput: " << fps_text << " FPS\n";

    if (!opts.report.empty()) {
        const PropertyValue report = {
            {"model", opts.model},
            {"device", opts.device},
            {"api", opts.api},
            {"nireq", nireq},
            {"performance_hint", hint},
            {"read_model_ms", read_ms},
            {"compile_ms", compile_ms},
            {"first_inference_ms", first_ms},
            {"iterations", count},
            {"duration_ms", result.duration_ms},
            {"latency_ms", {{"median", lat.median}, {"average", lat.average}, {"min", lat.min}, {"max", lat.max}}},
            {"throughput_fps", fps},
        };
        write_report(opts.report, report);
        std::cout << "Report written to " << opts.report << "\n";
    }
}

}  // namespace

void add_benchmark_command(CLI::App& app) {
    auto opts = std::make_shared<BenchmarkOptions>();
    CLI::App* cmd = app.add_subcommand("benchmark", "Measure latency and throughput (like OpenVINO benchmark_app)");
    cmd->add_option("-m,--model", opts->model, "Model file (.xml IR or another readable format)")->required();
    add_shape_option(cmd, opts->shapes);
    cmd->add_option("-d,--device", opts->device, "Device string, e.g. REFERENCE or HETERO:ACCEL,REFERENCE")->required();
    cmd->add_option("--niter", opts->niter, "Number of iterations (also -niter)");
    cmd->add_option("-t,--time", opts->seconds, "Seconds to run (default 60 when -niter is not given)");
    cmd->add_option("--nireq", opts->nireq,
                    "Infer requests in flight for -api async (default: the device's optimal number; also -nireq)");
    cmd->add_option("--api", opts->api, "sync or async (also -api)")
        ->capture_default_str()
        ->transform(CLI::IsMember({"sync", "async"}, CLI::ignore_case));
    cmd->add_option("--hint", opts->hint,
                    "PERFORMANCE_HINT: latency, throughput or none (default: throughput for async, latency for "
                    "sync; also -hint)")
        ->transform(CLI::IsMember({"latency", "throughput", "none"}, CLI::ignore_case));
    cmd->add_option("--config", opts->config,
                    "JSON file of compile properties: {\"KEY\": value} or {\"DEVICE\": {\"KEY\": value}}");
    cmd->add_option("--report", opts->report, "Write the figures to this JSON file");
    cmd->callback([opts] { run_benchmark(*opts); });
}

}  // namespace mosaic::cli
