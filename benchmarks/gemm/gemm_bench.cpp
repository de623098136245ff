// Single-precision GEMM throughput, C = A·B (row-major, M x K times K x N): CLBlast's Gemm<float> on
// the OpenCL device the GPU plugin would pick, against oneDNN's matmul on the host CPU, with the same
// thread count for both. Build and run with run.sh beside this file; README.md says how to read it.
//
//   gemm_bench [M [N [K]]] [--threads T] [--iterations N] [--rounds R] [--warmup W]
//              [--clblast-defaults | --params FILE | --tune S [--fraction F] [--save-params FILE]]
//
// CLBlast runs with the parameters the GPU plugin gives it for the device (its table in
// plugins/gpu/gemm/clblast_tuning.cpp), or CLBlast's own with --clblast-defaults, or those of a file with
// --params; --tune runs CLBlast's Xgemm tuner first, prints the table entry it found and, with
// --save-params, writes it as a file --params reads, so that one run can tune and later ones check.
//
// N and K default to M, M to 1024. Prints the machine, both libraries' median GFLOP/s, their ratio,
// and checks that both computed the same C (and that it is right) so a figure cannot come from a
// broken run; exits 1 when the check fails.

#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include "gemm/clblast_tuning.hpp"
#include "common/machine.hpp"
#include "gemm/tiled_gemm.hpp"

#include <CL/opencl.hpp>
#include <clblast.h>
#include <oneapi/dnnl/dnnl.hpp>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <unordered_map>
#include <utility>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

struct Options {
    size_t m = 1024, n = 1024, k = 1024;
    int threads = 2;
    int iterations = 10;  // timed calls per library per round
    int rounds = 3;       // CLBlast and oneDNN alternate, so drift in the machine's load hits both alike
    int warmup = 2;       // untimed calls after the first one
    bool clblast_defaults = false;  // skip the GPU plugin's parameter table (clblast_tuning.hpp)
    size_t tune_size = 0;           // with --tune S: run CLBlast's Xgemm tuner at S^3 first
    double tune_fraction = 0.02;    // the share of the tuner's search space it tries
    std::string save_params;        // --save-params: where --tune writes what it found
    std::string params;             // --params: a file of parameters to run instead of the table's
    std::string command;
};

[[noreturn]] void usage(const std::string& why) {
    std::fprintf(stderr,
                 "gemm_bench: %s\nusage: gemm_bench [M [N [K]]] [--threads T] [--iterations N] [--rounds R] "
                 "[--warmup W] [--clblast-defaults | --params FILE | --tune S [--fraction F] [--save-params FILE]]\n",
                 why.c_str());
    std::exit(2);
}

long positive(const std::string& flag, const char* text, long min) {
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v < min) usage(flag + " needs an integer >= " + std::to_string(min) + ", got '" + text + "'");
    return v;
}

Options parse_args(int argc, char** argv) {
    Options o;
    std::vector<size_t> dims;
    for (int i = 0; i < argc; ++i) o.command += (i ? " " : "") + std::string(argv[i]);
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&](long min) {
            if (i + 1 >= argc) usage(a + " needs a value");
            return positive(a, argv[++i], min);
        };
        if (a == "--threads") o.threads = static_cast<int>(value(1));
        else if (a == "--iterations") o.iterations = static_cast<int>(value(1));
        else if (a == "--rounds") o.rounds = static_cast<int>(value(1));
        else if (a == "--warmup") o.warmup = static_cast<int>(value(0));
        else if (a == "--clblast-defaults") o.clblast_defaults = true;
        else if (a == "--tune") o.tune_size = static_cast<size_t>(value(128));
        else if (a == "--params" || a == "--save-params") {
            if (i + 1 >= argc) usage(a + " needs a file");
            (a == "--params" ? o.params : o.save_params) = argv[++i];
        }
        else if (a == "--fraction") {
            if (i + 1 >= argc) usage(a + " needs a value");
            o.tune_fraction = std::atof(argv[++i]);
            if (!(o.tune_fraction > 0 && o.tune_fraction <= 1)) usage("--fraction needs a number in (0, 1]");
        }
        else if (a == "-h" || a == "--help") usage("help");
        else if (!a.empty() && a[0] != '-' && dims.size() < 3) dims.push_back(static_cast<size_t>(positive("size", argv[i], 1)));
        else usage("unknown argument '" + a + "'");
    }
    // CLBlast's tuner refuses sizes that are no multiple of the largest work-group tile it tries.
    if (o.tune_size % 128) usage("--tune needs a multiple of 128 (the largest MWG and NWG CLBlast's Xgemm tuner tries)");
    if (!o.save_params.empty() && !o.tune_size) usage("--save-params saves what --tune found: give --tune too");
    if (!o.params.empty() && (o.tune_size || o.clblast_defaults)) usage("--params excludes --tune and --clblast-defaults");
    if (!dims.empty()) o.m = o.n = o.k = dims[0];
    if (dims.size() > 1) o.n = o.k = dims[1];
    if (dims.size() > 2) o.k = dims[2];
    return o;
}

// ------------------------------------------------------------------------------------------------
// Machine (common/machine.hpp)

using bench::cpu_model;
using bench::load_average;

// ------------------------------------------------------------------------------------------------
// Timing

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

struct Timings {
    double setup_ms = 0;       // CLBlast: its first call (kernel compilation included); oneDNN: primitive creation
    double first_call_ms = 0;  // oneDNN's first execute (CLBlast's is setup_ms)
    std::vector<double> wall_ms;
    std::vector<double> event_ms;  // CLBlast only: OpenCL profiling, marker before the call to its last kernel
};

// ------------------------------------------------------------------------------------------------
// CLBlast

// The GPU plugin's choice (plugins/gpu/opencl/cl_discovery.cpp): the first GPU or accelerator device of any
// platform, else the first CPU-type device (PoCL's, on a machine without a GPU).
cl::Device pick_opencl_device() {
    std::vector<cl::Platform> platforms;
    cl::Platform::get(&platforms);
    for (cl_device_type type : {cl_device_type(CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR), cl_device_type(CL_DEVICE_TYPE_CPU)}) {
        for (const cl::Platform& p : platforms) {
            std::vector<cl::Device> devices;
            try {
                p.getDevices(type, &devices);
            } catch (const cl::Error& e) {
                if (e.err() != CL_DEVICE_NOT_FOUND) throw;
            }
            if (!devices.empty()) return devices.front();
        }
    }
    throw std::runtime_error("no OpenCL GPU, accelerator or CPU device (install an OpenCL driver, or pocl-opencl-icd)");
}

// CLBlast's parameters of one of its kernels, sorted so that they print and save in one order.
using Params = std::map<std::string, size_t>;

// What CLBlast holds for `kernel` ("Xgemm", "GemmRoutine") on the device: the table's, a file's,
// the tuner's or its own database's; the names are the ones the kernel takes.
Params clblast_parameters(const cl::Device& device, const std::string& kernel) {
    std::unordered_map<std::string, size_t> p;
    const auto status = clblast::RetrieveParameters(device(), kernel, clblast::Precision::kSingle, p);
    if (status != clblast::StatusCode::kSuccess)
        throw std::runtime_error("CLBlast gave no " + kernel + " parameters for the device (status " +
                                 std::to_string(static_cast<int>(status)) + ")");
    return Params(p.begin(), p.end());
}

void override_parameters(const cl::Device& device, const std::string& kernel, const Params& p, const std::string& whose) {
    const auto status = clblast::OverrideParameters(device(), kernel, clblast::Precision::kSingle, {p.begin(), p.end()});
    if (status != clblast::StatusCode::kSuccess)
        throw std::runtime_error("CLBlast refused " + whose + " " + kernel + " parameters (status " +
                                 std::to_string(static_cast<int>(status)) + ")");
}

std::string joined(const Params& p, bool values = true) {
    std::string s;
    for (const auto& [key, value] : p) s += (s.empty() ? "" : " ") + key + (values ? "=" + std::to_string(value) : "");
    return s;
}

std::string trimmed(const std::string& s) {
    const size_t first = s.find_first_not_of(" \t\r"), last = s.find_last_not_of(" \t\r");
    return first == std::string::npos ? "" : s.substr(first, last - first + 1);
}

// Runs CLBlast's own Xgemm tuner on `device` at size^3, trying `fraction` of its search space; prints
// the parameters as an entry of plugins/gpu/gemm/clblast_tuning.cpp's table, writes them to --save-params'
// file before anything else can fail, and gives them to CLBlast.
//
// CLBlast's TuneXgemm (1.5.3, and 1.7.0 alike) searches the standard kernel (GEMMK=0), then the 2-D
// register-tiled one (GEMMK=1), and returns the second search's best whatever the first found: its
// answer is always a GEMMK=1 kernel, which its tuner checked at S^3 only (see clblast_tuning.cpp on
// what such kernels did at other sizes). The first search is about 7 in 8 of the kernels it builds.
std::string tune_xgemm(const cl::Device& device, const std::string& name, const Options& o) {
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    cl_command_queue q = queue();
    std::unordered_map<std::string, size_t> found;
    const auto t0 = Clock::now();
    const auto status = clblast::TuneXgemm<float>(&q, o.tune_size, o.tune_size, o.tune_size, o.tune_fraction, found);
    if (status != clblast::StatusCode::kSuccess)
        throw std::runtime_error("CLBlast's Xgemm tuner failed with status " + std::to_string(static_cast<int>(status)));
    const Params params(found.begin(), found.end());
    char origin[512];
    std::snprintf(origin, sizeof origin, "CLBlast's Xgemm tuner, f32, on %s (%s, driver %s): %zu^3, fraction %g, in %.1f s",
                  name.c_str(), device.getInfo<CL_DEVICE_VERSION>().c_str(), device.getInfo<CL_DRIVER_VERSION>().c_str(),
                  o.tune_size, o.tune_fraction, ms_since(t0) / 1e3);
    std::printf("tuned:     %s; entry for plugins/gpu/gemm/clblast_tuning.cpp:\n"
                "           {\"<prefix of '%s'>\", \"<where>\",\n            {", origin, name.c_str());
    const char* sep = "";
    for (const auto& [key, value] : params) std::printf("%s{\"%s\", %zu}", std::exchange(sep, ", "), key.c_str(), value);
    std::printf("}},\n");
    if (!o.save_params.empty()) {
        std::ofstream out(o.save_params);
        out << "# " << origin << "\n# gemm_bench --params FILE runs these: KEY=VALUE a line; '#' starts a comment\n";
        for (const auto& [key, value] : params) out << key << '=' << value << '\n';
        if (!out.flush()) throw std::runtime_error("cannot write the tuned parameters to " + o.save_params);
        std::printf("saved:     %s\n", o.save_params.c_str());
    }
    override_parameters(device, "Xgemm", params, "the");
    return "the parameters just tuned (--tune)";
}

// Gives CLBlast the parameters of a file as --save-params writes it (KEY=VALUE a line, '#' to the
// end of a line a comment): every Xgemm parameter, and optionally GemmRoutine's, the two halves of a
// table entry. The names each kernel takes come from CLBlast. A file that would not run exactly what
// it says is refused naming the file and line, rather than leave CLBlast on its own values.
std::string apply_params_file(const cl::Device& device, const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read parameters from " + path);
    const Params xgemm_names = clblast_parameters(device, "Xgemm"), routine_names = clblast_parameters(device, "GemmRoutine");
    // CLBlast checks no value: a tile or vector width of 0 makes it divide by zero, and its kernel
    // tests these switches for 0 and 1 only.
    const std::set<std::string> switches = {"GEMMK", "SA", "SB", "STRM", "STRN"};
    Params xgemm, routine;
    std::map<std::string, int> line_of;
    int number = 0;
    for (std::string raw; std::getline(in, raw);) {
        const std::string where = path + ":" + std::to_string(++number) + ": ", line = trimmed(raw.substr(0, raw.find('#')));
        if (line.empty()) continue;
        const size_t eq = line.find('=');
        const std::string key = trimmed(line.substr(0, eq)), text = eq == std::string::npos ? "" : trimmed(line.substr(eq + 1));
        char* end = nullptr;
        errno = 0;
        const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
        if (key.empty() || text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])) || *end != '\0' || errno == ERANGE)
            throw std::runtime_error(where + "expected KEY=VALUE, VALUE a non-negative integer; got '" + line + "'");
        const bool for_xgemm = xgemm_names.count(key) > 0;
        if (!for_xgemm && !routine_names.count(key))
            throw std::runtime_error(where + "unknown parameter '" + key + "': CLBlast's Xgemm takes " +
                                     joined(xgemm_names, false) + "; its GemmRoutine " + joined(routine_names, false));
        if (line_of.count(key)) throw std::runtime_error(where + key + " given twice (first on line " + std::to_string(line_of[key]) + ")");
        if (for_xgemm && (switches.count(key) ? value > 1 : value == 0))
            throw std::runtime_error(where + key + "=" + text + ": " + key + (switches.count(key) ? " is 0 or 1" : " is at least 1"));
        line_of[key] = number;
        (for_xgemm ? xgemm : routine)[key] = static_cast<size_t>(value);
    }
    std::string missing;
    for (const auto& entry : xgemm_names)
        if (!xgemm.count(entry.first)) missing += " " + entry.first;
    if (!missing.empty()) throw std::runtime_error(path + ": no value for Xgemm's" + missing + " (CLBlast takes all of its parameters or none)");
    override_parameters(device, "Xgemm", xgemm, path + "'s");
    if (!routine.empty()) override_parameters(device, "GemmRoutine", routine, path + "'s");
    return "the parameters of " + path + " (--params)";
}

// The parameters CLBlast holds now, and whether this GEMM uses them: below XGEMM_MIN_INDIRECT_SIZE^3
// (M*N*K, CLBlast's Xgemm::UseDirectKernel) it runs its direct kernel, which they do not change. Its
// own value for an NVIDIA GPU its database does not know is 1472, above BERT-base's GEMMs and 1024^3.
std::string clblast_parameters_used(const cl::Device& device, const Options& o) {
    const Params routine = clblast_parameters(device, "GemmRoutine");
    const unsigned long long min = routine.at("XGEMM_MIN_INDIRECT_SIZE");
    const bool direct = static_cast<unsigned long long>(o.m) * o.n * o.k < min * min * min;
    return joined(clblast_parameters(device, "Xgemm")) + "; " + joined(routine) +
           (direct ? ": M*N*K is below its cube, so CLBlast runs its direct kernel, which these Xgemm parameters do not change"
                   : ": CLBlast runs the Xgemm kernel with these parameters");
}

class ClblastGemm {
public:
    // `tuning` names the parameters CLBlast was given, for the error when it cannot run them.
    ClblastGemm(const cl::Device& device, const Options& o, const std::string& tuning, const std::vector<float>& a,
                const std::vector<float>& b)
        : o_(o), tuning_(tuning), context_(device), queue_(context_, device, CL_QUEUE_PROFILING_ENABLE),
          a_(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a.size() * sizeof(float), const_cast<float*>(a.data())),
          b_(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, b.size() * sizeof(float), const_cast<float*>(b.data())),
          c_(context_, CL_MEM_READ_WRITE, o.m * o.n * sizeof(float)) {}

    // One call, waited for; returns its device time from OpenCL profiling. CLBlast's event is only
    // its last kernel (at 1024^3 on PoCL a few ms of copying, after the GEMM kernel proper), so the
    // time runs from the end of a marker enqueued just before the call to the end of that event:
    // every kernel CLBlast enqueued, on an in-order queue.
    double run() {
        cl::Event before;
        queue_.enqueueMarkerWithWaitList(nullptr, &before);
        cl_command_queue q = queue_();
        cl_event raw = nullptr;
        const auto status = clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo,
                                                 o_.m, o_.n, o_.k, 1.0f, a_(), 0, o_.k, b_(), 0, o_.n, 0.0f, c_(), 0, o_.n, &q, &raw);
        if (status != clblast::StatusCode::kSuccess)
            throw std::runtime_error("CLBlast Gemm failed with status " + std::to_string(static_cast<int>(status)) +
                                     ", running " + tuning_);
        cl::Event last(raw);  // takes CLBlast's reference
        last.wait();
        return (last.getProfilingInfo<CL_PROFILING_COMMAND_END>() - before.getProfilingInfo<CL_PROFILING_COMMAND_END>()) / 1e6;
    }

    std::vector<float> result() {
        std::vector<float> c(o_.m * o_.n);
        queue_.enqueueReadBuffer(c_, CL_TRUE, 0, c.size() * sizeof(float), c.data());
        return c;
    }

private:
    const Options& o_;
    const std::string tuning_;
    cl::Context context_;
    cl::CommandQueue queue_;
    cl::Buffer a_, b_, c_;
};

// ------------------------------------------------------------------------------------------------
// Mosaic's tiled kernel, through the GPU plugin's own TiledGemm (plugins/gpu/gemm/tiled_gemm.cpp) on a
// program built as the plugin begins its own (the pieces kernels/prelude.txt lists, its epilogue
// among them) followed by kernels/gemm.cl. Neither operand is a constant, so every call packs both
// (as a MatMul of two activations does; the plugin packs a constant operand once, at compile time,
// which makes a call cheaper than measured here).

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// The prelude's files in its order, then gemm.cl: the plugin's program without the other op groups.
std::string tiled_gemm_program() {
    const std::string dir = MOSAIC_GEMM_KERNELS;
    std::istringstream prelude(read_file(dir + "/prelude.txt"));
    std::string text, line;
    while (std::getline(prelude, line))
        if (!line.empty() && line[0] != '#') text += read_file(dir + "/" + line);
    return text + read_file(dir + "/gemm.cl");
}

class TiledGemmRun {
public:
    TiledGemmRun(const cl::Device& device, const Options& o, const std::vector<float>& a, const std::vector<float>& b)
        : o_(o), context_(device), queue_(context_, device, CL_QUEUE_PROFILING_ENABLE),
          program_(context_, tiled_gemm_program()),
          a_(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a.size() * sizeof(float), const_cast<float*>(a.data())),
          b_(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, b.size() * sizeof(float), const_cast<float*>(b.data())),
          c_(context_, CL_MEM_READ_WRITE, o.m * o.n * sizeof(float)), gemm_(shape(o)) {
        const std::string options = "-cl-std=CL1.2";
        try {
            program_.build({device}, options.c_str());
        } catch (const cl::Error&) {
            throw std::runtime_error("building the kernels of " MOSAIC_GEMM_KERNELS " failed:\n" +
                                     program_.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device));
        }
        scratch_ = cl::Buffer(context_, CL_MEM_READ_WRITE, gemm_.scratch_elements() * sizeof(float));
    }

    // One call, waited for; returns its device time from OpenCL profiling (first to last kernel).
    double run() {
        std::vector<cl::Event> events;
        mosaic::gpu_plugin::ExecContext ctx(queue_, program_, buffers_, kernels_, &events, &scratch_);
        gemm_.enqueue(ctx, a_, 0, b_, 0, c_, 0, 0);
        events.back().wait();
        return (events.back().getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                events.front().getProfilingInfo<CL_PROFILING_COMMAND_START>()) / 1e6;
    }

    std::vector<float> result() {
        std::vector<float> c(o_.m * o_.n);
        queue_.enqueueReadBuffer(c_, CL_TRUE, 0, c.size() * sizeof(float), c.data());
        return c;
    }

private:
    static mosaic::gpu_plugin::GemmShape shape(const Options& o) {
        mosaic::gpu_plugin::GemmShape s;
        s.m = o.m;
        s.n = o.n;
        s.k = o.k;
        return s;
    }

    const Options& o_;
    cl::Context context_;
    cl::CommandQueue queue_;
    cl::Program program_;
    cl::Buffer a_, b_, c_, scratch_;
    std::vector<cl::Buffer> buffers_;  // the plugin's per-value buffers: none, the operands are passed directly
    std::map<std::string, cl::Kernel> kernels_;
    mosaic::gpu_plugin::TiledGemm gemm_;
};

// ------------------------------------------------------------------------------------------------
// oneDNN: the matmul primitive, as the CPU plugin runs MatMul

class OnednnGemm {
public:
    OnednnGemm(const Options& o, std::vector<float>& a, std::vector<float>& b)
        : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_), c_host_(o.m * o.n) {
        using dt = dnnl::memory::data_type;
        using tag = dnnl::memory::format_tag;
        const auto dim = [](size_t v) { return static_cast<dnnl::memory::dim>(v); };
        const dnnl::memory::desc a_md({dim(o.m), dim(o.k)}, dt::f32, tag::ab);
        const dnnl::memory::desc b_md({dim(o.k), dim(o.n)}, dt::f32, tag::ab);
        const dnnl::memory::desc c_md({dim(o.m), dim(o.n)}, dt::f32, tag::ab);
        const auto t0 = Clock::now();
        pd_ = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, c_md), engine_);
        matmul_ = dnnl::matmul(pd_);
        setup_ms_ = ms_since(t0);
        a_ = dnnl::memory(a_md, engine_, a.data());
        b_ = dnnl::memory(b_md, engine_, b.data());
        c_ = dnnl::memory(c_md, engine_, c_host_.data());
    }

    double setup_ms() const { return setup_ms_; }
    std::string implementation() const { return pd_.impl_info_str(); }

    void run() {
        matmul_.execute(stream_, {{DNNL_ARG_SRC, a_}, {DNNL_ARG_WEIGHTS, b_}, {DNNL_ARG_DST, c_}});
        stream_.wait();
    }

    const std::vector<float>& result() const { return c_host_; }

private:
    dnnl::engine engine_;
    dnnl::stream stream_;
    std::vector<float> c_host_;
    dnnl::matmul::primitive_desc pd_;
    dnnl::matmul matmul_;
    dnnl::memory a_, b_, c_;
    double setup_ms_ = 0;
};

// ------------------------------------------------------------------------------------------------
// Correctness

struct Check {
    double max_diff_between = 0;  // |C_clblast - C_onednn|, over all of C
    double max_diff_exact = 0;    // against a double-precision dot product, over sampled entries
    double tolerance = 0;
    bool ok() const { return max_diff_between <= tolerance && max_diff_exact <= tolerance; }
};

// Both results against each other everywhere, and both against an exact (double) dot product at a
// few hundred entries, so that two libraries wrong in the same way cannot pass either.
Check check(const Options& o, const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c1,
            const std::vector<float>& c2) {
    Check r;
    // Entries of A and B lie in [-1, 1), so an entry of C is about sqrt(K/9) in size: rounding in a
    // K-term f32 sum stays within a few K * eps (errors of random sign partly cancel), while a wrong
    // tile, a stale buffer or a race is off by about as much as the entry itself.
    r.tolerance = 4.0 * static_cast<double>(o.k) * 1.1920929e-7;
    for (size_t i = 0; i < c1.size(); ++i) r.max_diff_between = std::max(r.max_diff_between, std::fabs(double(c1[i]) - c2[i]));
    std::mt19937 pick(7);
    for (int s = 0; s < 256; ++s) {
        const size_t i = pick() % o.m, j = pick() % o.n;
        double exact = 0;
        for (size_t p = 0; p < o.k; ++p) exact += double(a[i * o.k + p]) * b[p * o.n + j];
        for (const auto* c : {&c1, &c2}) r.max_diff_exact = std::max(r.max_diff_exact, std::fabs(exact - (*c)[i * o.n + j]));
    }
    return r;
}

// ------------------------------------------------------------------------------------------------

std::vector<float> random_matrix(size_t count, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> v(count);
    for (float& x : v) x = dist(gen);
    return v;
}

double gflops(const Options& o, double ms) { return 2.0 * o.m * o.n * o.k / (ms * 1e-3) / 1e9; }

double time_call(const std::function<void()>& call) {
    const auto t0 = Clock::now();
    call();
    return ms_since(t0);
}

void print_line(const char* name, const Options& o, const Timings& t) {
    const double wall = median(t.wall_ms);
    std::printf("%-8s median %8.2f ms  %7.1f GFLOP/s (wall)", name, wall, gflops(o, wall));
    if (!t.event_ms.empty()) {
        const double ev = median(t.event_ms);
        std::printf("   %8.2f ms  %7.1f GFLOP/s (OpenCL event)", ev, gflops(o, ev));
    }
    std::printf("   min %.2f ms, %zu calls\n", *std::min_element(t.wall_ms.begin(), t.wall_ms.end()), t.wall_ms.size());
}

}  // namespace

int main(int argc, char** argv) try {
    const Options o = parse_args(argc, argv);
    // PoCL's CPU device ignores OpenMP and reads its worker count once, when the first OpenCL call
    // initialises it; setting it here makes --threads the one knob for both libraries.
    setenv("POCL_MAX_PTHREAD_COUNT", std::to_string(o.threads).c_str(), 1);
    // libgomp read OMP_NUM_THREADS when it was loaded; this overrides it for oneDNN's parallel regions.
    omp_set_num_threads(o.threads);

    const std::string load_before = load_average();
    const auto a = random_matrix(o.m * o.k, 1), b = random_matrix(o.k * o.n, 2);
    std::vector<float> a_dnnl = a, b_dnnl = b;  // oneDNN takes non-const handles

    const cl::Device device = pick_opencl_device();
    const std::string device_name = device.getInfo<CL_DEVICE_NAME>().c_str();  // up to the NUL some drivers leave in
    // The parameters the GPU plugin gives CLBlast for this device, unless asked for others.
    const std::string tuning = o.tune_size           ? tune_xgemm(device, device_name, o)
                               : !o.params.empty()   ? apply_params_file(device, o.params)
                               : o.clblast_defaults  ? "CLBlast's own parameters (--clblast-defaults)"
                                                     : mosaic::gpu_plugin::apply_gemm_tuning(device(), device_name);
    ClblastGemm blast(device, o, tuning, a, b);
    TiledGemmRun tiled(device, o, a, b);
    OnednnGemm dnnl(o, a_dnnl, b_dnnl);

    Timings tb, tt, td;
    tb.setup_ms = time_call([&] { blast.run(); });
    tt.setup_ms = time_call([&] { tiled.run(); });
    td.setup_ms = dnnl.setup_ms();
    td.first_call_ms = time_call([&] { dnnl.run(); });
    for (int i = 0; i < o.warmup; ++i) {
        blast.run();
        tiled.run();
        dnnl.run();
    }
    for (int r = 0; r < o.rounds; ++r) {
        for (auto [timings, gemm] : {std::pair{&tb, std::function<double()>([&] { return blast.run(); })},
                                     std::pair{&tt, std::function<double()>([&] { return tiled.run(); })}})
            for (int i = 0; i < o.iterations; ++i) {
                double ev = 0;
                timings->wall_ms.push_back(time_call([&] { ev = gemm(); }));
                timings->event_ms.push_back(ev);
            }
        for (int i = 0; i < o.iterations; ++i) td.wall_ms.push_back(time_call([&] { dnnl.run(); }));
    }
    const Check c = check(o, a, b, blast.result(), dnnl.result()), ct = check(o, a, b, tiled.result(), dnnl.result());

    const auto v = dnnl::version();
    std::printf("command:   %s\n", o.command.c_str());
    std::printf("CPU:       %s, %ld online CPUs\n", cpu_model().c_str(), sysconf(_SC_NPROCESSORS_ONLN));
    std::printf("load avg:  %s before, %s after\n", load_before.c_str(), load_average().c_str());
    std::printf("GEMM:      f32, row-major, C[%zu x %zu] = A[%zu x %zu] * B[%zu x %zu]; %d round(s) x %d calls each, "
                "alternating, after %d warm-up calls\n",
                o.m, o.n, o.m, o.k, o.k, o.n, o.rounds, o.iterations, o.warmup);
    std::printf("OpenCL:    %s (%s), %u compute units (POCL_MAX_PTHREAD_COUNT=%d)\n", device_name.c_str(),
                device.getInfo<CL_DEVICE_VERSION>().c_str(), device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>(), o.threads);
    std::printf("CLBlast:   Xgemm with %s: %s\n", tuning.c_str(), clblast_parameters_used(device, o).c_str());
    std::printf("oneDNN:    %d.%d.%d, %s, %d OpenMP threads\n", v->major, v->minor, v->patch, dnnl.implementation().c_str(),
                omp_get_max_threads());
    std::printf("Tiled:     Mosaic's gemm_tiled_f32 (GEMM_MR=%d GEMM_NR=%d GEMM_MT=%d: kernel_interface.h), both "
                "operands packed in every call\n",
                GEMM_MR, GEMM_NR, GEMM_MT);
    std::printf("setup:     CLBlast first call %.1f ms (kernel compilation included); Tiled first call %.1f ms; oneDNN "
                "primitive creation %.1f ms, first call %.1f ms\n",
                tb.setup_ms, tt.setup_ms, td.setup_ms, td.first_call_ms);
    print_line("CLBlast", o, tb);
    print_line("Tiled", o, tt);
    print_line("oneDNN", o, td);
    std::printf("ratio:     CLBlast / oneDNN GFLOP/s = %.2f (wall); Tiled / oneDNN = %.2f (wall)\n",
                median(td.wall_ms) / median(tb.wall_ms), median(td.wall_ms) / median(tt.wall_ms));
    for (const auto& [name, r] : {std::pair{"CLBlast", c}, std::pair{"Tiled", ct}})
        std::printf("check:     max |C_%s - C_onednn| = %.3g; max error against a double dot product at 256 entries "
                    "= %.3g; tolerance 4*K*eps = %.3g: %s\n",
                    name, r.max_diff_between, r.max_diff_exact, r.tolerance, r.ok() ? "OK" : "FAILED");
    return c.ok() && ct.ok() ? 0 : 1;
} catch (const cl::Error& e) {
    std::fprintf(stderr, "gemm_bench: OpenCL call %s failed with status %d\n", e.what(), e.err());
    return 1;
} catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_bench: %s\n", e.what());
    return 1;
}
