// mosaic benchmark: OpenVINO's benchmark_app, with its flags and its output.
//   -m MODEL -d DEVICE [-i [NAME=]FILE...] [-b N] [-shape S] [-data_shape S] [-niter N | -t SEC]
//   [-nireq N] [-nstreams N] [-nthreads N] [-infer_precision T] [-hint latency|throughput|none]
//   [-api sync|async] [-pc] [-pcsort sort|no_sort|simple_sort] [-report_type TYPE]
//   [-report_folder DIR] [-json_stats] [--config FILE.json] [--report FILE.json]
//
// Measures like benchmark_app: one warm-up inference (reported, not counted), then either one
// request in a loop (sync) or nireq requests kept in flight with completion callbacks (async).
// Throughput is frames (iterations x batch) / wall time, as benchmark_app computes it for both APIs.
// The eleven "[Step i/11]" lines are benchmark_app's; Mosaic adds the HETERO split line.
// With -m an LLM folder: generation figures instead (llm_benchmark.hpp; --prompt_length, --new_tokens,
// -niter rounds, -nthreads, -infer_precision, --config, --report).
#include "benchmark_report.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "config_file.hpp"
#include "device_flags.hpp"
#include "inputs.hpp"
#include "llm_benchmark.hpp"
#include "profiling.hpp"
#include "progress.hpp"
#include "shapes.hpp"
#include "split_summary.hpp"
#include "statistics.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>

namespace mosaic::cli {

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kDefaultSeconds = 60;      // benchmark_app's default when neither -niter nor -t is given
constexpr double kProgressAfterSeconds = 2;  // shorter runs get no progress bar

struct BenchmarkOptions {
    ShapeArgs shapes;  // -shape, -data_shape, -b
    std::string model;
    std::string device;
    std::vector<std::string> inputs;  // -i
    int64_t niter = 0;
    double seconds = 0;
    int64_t nireq = 0;
    std::string nstreams, nthreads, infer_precision;  // device properties, see device_flags.hpp
    std::string api = "async";
    std::string hint;  // empty: THROUGHPUT for async, LATENCY for sync, where the device supports it
    std::string config;
    std::string report;  // Mosaic's own JSON summary
    bool pc = false;
    std::string pcsort;
    std::string report_type, report_folder;
    bool json_stats = false;
    // The LLM mode (-m a decoder LLM folder; llm_benchmark.hpp).
    std::optional<int64_t> prompt_length, new_tokens, requests;
};

// benchmark_app's step lines: "[Step 3/11] Setting device configuration".
class Steps {
public:
    void next(const std::string& detail = "") {
        static const char* const kNames[] = {"Parsing and validating input arguments",
                                             "Loading the Mosaic runtime",
                                             "Setting device configuration",
                                             "Reading model files",
                                             "Resizing model to match image sizes and given batch",
                                             "Configuring input of the model",
                                             "Loading the model to the device",
                                             "Querying optimal runtime parameters",
                                             "Creating infer requests and preparing input tensors",
                                             "Measuring performance",
                                             "Dumping statistics report"};
        constexpr size_t total = sizeof(kNames) / sizeof(kNames[0]);
        ++step_;
        std::cout << "[Step " << step_ << "/" << total << "] " << kNames[step_ - 1]
                  << (detail.empty() ? "" : " (" + detail + ")") << std::endl;
    }

private:
    size_t step_ = 0;
};

double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string fmt_ms(double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.2f ms", v);
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

// benchmark_app's frames per iteration: the batch dimension N of the first input that has one
// (see has_batch_dim); 1, with a warning, when none has.
int64_t batch_size(const CompiledModel& compiled) {
    for (const auto& port : compiled.inputs())
        if (has_batch_dim(port.shape) && port.shape[0] > 0) return port.shape[0];
    warn("no batch dimension was found, assuming batch to be 1; this might affect the FPS figure");
    return 1;
}

// The options given on the command line, as benchmark_app lists its non-default flags in the
// report: named by their short or single-dash spelling, without the dash.
std::vector<ReportItem> given_options(const CLI::App& cmd) {
    std::vector<ReportItem> items;
    for (const CLI::Option* opt : cmd.get_options()) {
        if (opt->count() == 0) continue;
        const std::string name = !opt->get_snames().empty() ? opt->get_snames().front() : opt->get_lnames().front();
        std::string value;
        for (const auto& r : opt->results()) value += (value.empty() ? "" : " ") + r;
        items.push_back({name, name, value});
    }
    return items;
}

// Checks everything that needs no device, so that a typo fails before a slow compile.
void validate(const BenchmarkOptions& opts) {
    if (opts.niter < 0) throw UsageError("-niter must be positive, got " + std::to_string(opts.niter));
    if (opts.seconds < 0) throw UsageError("-t must be positive");
    if (opts.nireq < 0) throw UsageError("-nireq must be positive, got " + std::to_string(opts.nireq));
    if (!opts.pcsort.empty()) parse_pcsort(opts.pcsort);
    if (!opts.report_type.empty()) parse_report_type(opts.report_type);
    if (opts.report_type.empty() && (!opts.report_folder.empty() || opts.json_stats))
        warn("-report_folder and -json_stats write reports only with -report_type (no_counters, average_counters "
             "or detailed_counters)");
    parse_shape_args(opts.shapes.shape, "-shape");
    parse_shape_args(opts.shapes.data_shape, "-data_shape");
    for (const auto& spec : opts.inputs) parse_input_spec(spec);
}

void print_properties(const AnyMap& props) {
    for (const auto& [key, value] : props) std::cout << "    " << key << ": " << format_property(value) << "\n";
}

// -pc and -pcsort: every request's counters, as benchmark_app prints them.
void print_counters(const BenchmarkOptions& opts, const std::vector<std::vector<ProfilingInfo>>& per_request) {
    for (size_t i = 0; i < per_request.size(); ++i) {
        if (opts.pcsort.empty()) {
            std::cout << "Performance counts for " << i << "-th infer request:\n";
            print_profiling(std::cout, per_request[i]);
        } else {
            std::cout << "Sort performance counts for " << i << "-th infer request:\n";
            print_profiling(std::cout, sort_profiling(per_request[i], parse_pcsort(opts.pcsort)), true);
        }
    }
}

// The device properties the flags ask for, over --config's.
AnyMap device_properties(const BenchmarkOptions& opts, AnyMap props) {
    for (const DeviceFlag& flag : {DeviceFlag{"-nstreams", properties::num_streams.name, opts.nstreams},
                                   DeviceFlag{"-nthreads", properties::inference_num_threads.name, opts.nthreads},
                                   DeviceFlag{"-infer_precision", properties::hint::inference_precision.name,
                                              opts.infer_precision}})
        apply_device_flag(props, opts.device, flag);
    return props;
}

// -m names a folder: an LLM, generated from rather than inferred once per iteration.
void run_llm_mode(const BenchmarkOptions& opts) {
    if (opts.seconds > 0 || opts.nireq > 0 || !opts.inputs.empty() || opts.pc || !opts.pcsort.empty() ||
        !opts.report_type.empty() || !opts.shapes.shape.empty() || !opts.shapes.data_shape.empty())
        throw UsageError("-m " + opts.model + " is a folder: an LLM, benchmarked with --prompt_length, --new_tokens and "
                         "-niter (rounds); -t, -nireq, -i, -shape, -data_shape, -pc and -report_type are for a model file");
    LlmBenchmarkOptions llm;
    llm.model = opts.model;
    llm.device = opts.device;
    llm.properties = device_properties(opts, opts.config.empty() ? AnyMap{} : load_config(opts.config, opts.device));
    if (opts.prompt_length) llm.prompt_length = *opts.prompt_length;
    if (opts.new_tokens) llm.new_tokens = *opts.new_tokens;
    if (opts.niter) llm.rounds = opts.niter;
    if (opts.requests) llm.requests = *opts.requests;
    llm.report = opts.report;
    run_llm_benchmark(llm);
}

void run_benchmark(const BenchmarkOptions& opts, const std::vector<ReportItem>& command_line) {
    if (std::filesystem::is_directory(opts.model)) return run_llm_mode(opts);
    if (opts.prompt_length || opts.new_tokens || opts.requests)
        throw UsageError("--prompt_length, --new_tokens and --requests are for an LLM folder (-m FOLDER); " + opts.model +
                         " is not a folder");
    Steps steps;
    steps.next();
    validate(opts);
    const bool counters = !opts.report_type.empty() && has_counters(parse_report_type(opts.report_type));
    const bool perf_count = opts.pc || !opts.pcsort.empty() || counters;

    steps.next();
    Core core;
    std::cout << "Registry: " << core.registry_path() << "\n";

    steps.next();
    AnyMap props = opts.config.empty() ? AnyMap{} : load_config(opts.config, opts.device);
    const std::string hint = choose_hint(core, opts, props);
    if (!hint.empty()) props[properties::hint::performance_mode.name] = hint;
    if (perf_count) props[properties::enable_profiling.name] = true;
    props = device_properties(opts, std::move(props));
    print_properties(props);

    steps.next();
    Clock::time_point t0 = Clock::now();
    std::vector<ResolvedShape> shapes;
    // The data given with -i decides the shape of dynamic inputs, as -data_shape does.
    ShapeArgs shape_args = opts.shapes;
    if (shape_args.data_shape.empty() && !opts.inputs.empty()) {
        shape_args.data_shape = data_shapes_of(opts.inputs);
        shape_args.data_flag = "-i";
    }
    const std::shared_ptr<Model> model = load_model(core, opts.model, shape_args, &shapes);
    const double read_ms = ms_between(t0, Clock::now());
    std::cout << "Model: " << opts.model << " (" << model->get_friendly_name() << ")\n"
              << "Read model in " << fmt_ms(read_ms) << "\n";

    steps.next();
    for (const auto& s : shapes)
        if (s.resolved != s.declared)
            std::cout << "Reshaped input '" << s.name << "': " << to_string(s.declared) << " -> " << to_string(s.resolved)
                      << "\n";

    steps.next();
    std::cout << "Model inputs:\n";
    for (const auto& s : shapes) std::cout << "    " << s.name << " : " << to_string(s.resolved) << "\n";

    steps.next();
    t0 = Clock::now();
    CompiledModel compiled = with_default_shape_note(shapes, [&] { return compile_model(core, model, opts.device, props); });
    const double compile_ms = ms_between(t0, Clock::now());
    std::cout << "Compiled in " << fmt_ms(compile_ms) << "\n";
    if (const std::string split = split_summary(compiled); !split.empty()) std::cout << split << "\n";

    steps.next();
    const int64_t nireq = request_count(opts, compiled);
    const int64_t batch = batch_size(compiled);
    StopRule stop{opts.niter, opts.seconds};
    if (stop.niter == 0 && stop.seconds == 0) stop.seconds = kDefaultSeconds;
    if (opts.api == "async" && stop.niter > 0 && stop.niter % nireq) {
        const int64_t aligned = (stop.niter + nireq - 1) / nireq * nireq;
        warn("number of iterations aligned to the number of requests, from " + std::to_string(stop.niter) + " to " +
             std::to_string(aligned));
        stop.niter = aligned;
    }
    std::cout << "Device: " << opts.device << "\n"
              << "API: " << opts.api << ", " << nireq << " infer request" << (nireq > 1 ? "s" : "")
              << ", PERFORMANCE_HINT: " << (hint.empty() ? "(not set)" : hint) << "\n"
              << "Batch: " << batch << "\n";

    steps.next();
    const std::vector<InputData> inputs = prepare_inputs(compiled, opts.inputs);
    std::vector<InferRequest> requests;
    for (int64_t i = 0; i < nireq; ++i) {
        requests.push_back(compiled.create_infer_request());
        set_inputs(requests.back(), inputs);
    }
    print_inputs(std::cout, inputs);

    std::string limits = stop.seconds > 0 ? std::to_string(static_cast<int64_t>(stop.seconds * 1000)) + " ms duration" : "";
    if (stop.niter > 0) limits += (limits.empty() ? "" : ", ") + std::to_string(stop.niter) + " iterations";
    steps.next("Start inference " + opts.api + "hronously" +
               (opts.api == "async" ? ", " + std::to_string(nireq) + " inference requests" : "") + ", limits: " + limits);

    // Warm-up: the first inference pays for lazy allocations; it is reported, not counted.
    t0 = Clock::now();
    requests[0].infer();
    const double first_ms = ms_between(t0, Clock::now());
    std::cout << "First inference took " << fmt_ms(first_ms) << std::endl;

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
    const double fps = static_cast<double>(count * batch) * 1000.0 / std::max(result.duration_ms, 1e-9);

    steps.next();
    std::vector<std::vector<ProfilingInfo>> per_request;
    if (perf_count)
        for (const auto& r : requests) per_request.push_back(r.get_profiling_info());
    if (opts.pc || !opts.pcsort.empty()) print_counters(opts, per_request);

    if (!opts.report_type.empty()) {
        StatisticsReport stats;
        stats.command_line = command_line;
        stats.configuration = {
            {"topology", "topology", model->get_friendly_name()},
            {"target device", "target_device", opts.device},
            {"API", "api", opts.api},
            {"precision", "precision", to_string(compiled.inputs().front().type)},
            {"batch size", "batch_size", batch},
            {"number of iterations", "iterations_num", stop.niter},
            {"number of parallel infer requests", "nireq", nireq},
            {"duration (ms)", "duration", static_cast<int64_t>(stop.seconds * 1000)},
        };
        stats.results = {
            {"read model time (ms)", "read_model_time", read_ms},
            {"compile model time (ms)", "compile_model_time", compile_ms},
            {"first inference time (ms)", "first_inference_time", first_ms},
            {"total execution time (ms)", "execution_time", result.duration_ms},
            {"total number of iterations", "iterations_num", count},
            {"Median latency (ms)", "latency_median", lat.median},
            {"Percentile boundary", "percentile_boundary", 50},
            {"Average latency (ms)", "latency_avg", lat.average},
            {"Min latency (ms)", "latency_min", lat.min},
            {"Max latency (ms)", "latency_max", lat.max},
            {"throughput", "throughput", fps},
        };
        for (const auto& path : write_reports(opts.report_folder, parse_report_type(opts.report_type), opts.json_stats,
                                              stats, per_request))
            std::cout << "Report written to " << path << "\n";
    }

    try {
        std::cout << "Execution Devices: " << format_property(compiled.get_property(properties::execution_devices))
                  << "\n";
    } catch (const std::exception&) {
        // a device that does not report them: benchmark_app leaves the line out too
    }
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
            {"batch", batch},
            {"performance_hint", hint},
            {"read_model_ms", read_ms},
            {"compile_ms", compile_ms},
            {"first_inference_ms", first_ms},
            {"iterations", count},
            {"duration_ms", result.duration_ms},
            {"latency_ms", {{"median", lat.median}, {"average", lat.average}, {"min", lat.min}, {"max", lat.max}}},
            {"throughput_fps", fps},
        };
        write_text_file(opts.report, report.dump(2) + "\n");
        std::cout << "Report written to " << opts.report << "\n";
    }
}

}  // namespace

void add_benchmark_command(CLI::App& app) {
    auto opts = std::make_shared<BenchmarkOptions>();
    CLI::App* cmd = app.add_subcommand("benchmark", "Measure latency and throughput (like OpenVINO benchmark_app); of an LLM folder, generation figures");
    cmd->add_option("-m,--model", opts->model, "Model file (.xml IR or another readable format)")->required();
    cmd->add_option("-d,--device", opts->device, "Device string, e.g. REFERENCE or HETERO:ACCEL,REFERENCE")->required();
    cmd->add_option("-i,--input", opts->inputs,
                    "[NAME=]FILE for a model input: a .npy file, or JPEG/PNG images (BGR, one per batch item or one "
                    "for all); other inputs get deterministic data")
        ->take_all();
    add_shape_options(cmd, opts->shapes, true);
    cmd->add_option("--niter", opts->niter, "Number of iterations (also -niter)");
    cmd->add_option("-t,--time", opts->seconds, "Seconds to run (default 60 when -niter is not given)");
    cmd->add_option("--nireq", opts->nireq,
                    "Infer requests in flight for -api async (default: the device's optimal number; also -nireq)");
    cmd->add_option("--nstreams", opts->nstreams,
                    "NUM_STREAMS for the device(s): N, or DEVICE:N,DEVICE:N for the devices of HETERO (also -nstreams)");
    cmd->add_option("--nthreads", opts->nthreads,
                    "INFERENCE_NUM_THREADS for the device(s), spelled as -nstreams (also -nthreads)");
    cmd->add_option("--infer_precision", opts->infer_precision,
                    "INFERENCE_PRECISION_HINT for the device(s), e.g. f32 or ACCEL:f32 (also -infer_precision)");
    cmd->add_option("--api", opts->api, "sync or async (also -api)")
        ->capture_default_str()
        ->transform(CLI::IsMember({"sync", "async"}, CLI::ignore_case));
    cmd->add_option("--hint", opts->hint,
                    "PERFORMANCE_HINT: latency, throughput or none (default: throughput for async, latency for "
                    "sync; also -hint)")
        ->transform(CLI::IsMember({"latency", "throughput", "none"}, CLI::ignore_case));
    cmd->add_flag("--pc", opts->pc, "Print per-layer performance counters of every request (also -pc)");
    cmd->add_option("--pcsort", opts->pcsort,
                    "Print the counters sorted: sort, no_sort or simple_sort (executed layers only; also -pcsort)");
    cmd->add_option("--report_type", opts->report_type,
                    "Write benchmark_app's reports: no_counters, average_counters or detailed_counters "
                    "(also -report_type)");
    cmd->add_option("--report_folder", opts->report_folder,
                    "Folder for the -report_type files (default: the current folder; also -report_folder)");
    cmd->add_flag("--json_stats", opts->json_stats, "Write the -report_type reports as JSON instead of CSV (also -json_stats)");
    cmd->add_option("--config", opts->config,
                    "JSON file of compile properties: {\"KEY\": value} or {\"DEVICE\": {\"KEY\": value}}");
    cmd->add_option("--report", opts->report, "Write Mosaic's summary of the figures to this JSON file");
    cmd->add_option("--prompt_length", opts->prompt_length,
                    "LLM mode (-m a model folder): tokens in the prompt (default 128); -niter is the rounds (default 3)");
    cmd->add_option("--new_tokens", opts->new_tokens, "LLM mode: tokens generated per round (default 64)");
    cmd->add_option("--requests", opts->requests,
                    "LLM mode: requests generated together by continuous batching (ContinuousBatchingPipeline); "
                    "default 1 (LLMPipeline)");
    cmd->callback([opts, cmd] { run_benchmark(*opts, given_options(*cmd)); });
}

}  // namespace mosaic::cli
