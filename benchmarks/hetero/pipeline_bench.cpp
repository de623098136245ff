// Requests flowing through HETERO's stages (docs/hetero.md, "Inference: overlap and pipelining"):
// for one model on one HETERO device string,
//   1. the plan's predicted time of each subgraph (HETERO_SPLIT predicted_us) against the time
//      measured for it (PERF_COUNT records of the subgraph, median over the runs), as a ratio;
//   2. the throughput with N requests in flight (N threads, each running its request in a loop)
//      against one request (the stages one after another), for each N asked.
// Prints figures; asserts nothing.
//   pipeline_bench MODEL DEVICE CONFIG_JSON SECONDS N1,N2,... [DEVICE_SETTINGS_JSON]
// DEVICE_SETTINGS_JSON, {"ACCEL": {"COST_FACTOR": 4}}, is set on the devices (Core::set_property)
// before compiling: what the devices' cost estimates read, which compile-time properties do not reach.
#include "common/machine.hpp"

#include <mosaic/mosaic.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace mosaic;
using Clock = std::chrono::steady_clock;

namespace {

AnyMap to_map(const nlohmann::json& j) {
    AnyMap m;
    for (const auto& [k, v] : j.items()) m[k] = v;
    return m;
}

// Deterministic inputs: small floats, or bytes for other types.
std::vector<Tensor> inputs_of(const CompiledModel& compiled) {
    std::vector<Tensor> inputs;
    for (const PortDesc& p : compiled.inputs()) {
        Tensor t(p.type, p.shape);
        auto* bytes = static_cast<uint8_t*>(t.data());
        for (size_t i = 0; i < t.get_byte_size(); ++i) bytes[i] = static_cast<uint8_t>((i * 7) % 61);
        if (p.type == ElementType::f32) {
            float* f = t.data<float>();
            for (size_t i = 0; i < t.get_size(); ++i) f[i] = static_cast<float>((i * 7) % 61) / 61.0f - 0.5f;
        }
        inputs.push_back(std::move(t));
    }
    return inputs;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// Per subgraph: the predicted time and the median measured one.
void predicted_against_measured(Core& core, const std::shared_ptr<Model>& model, const std::string& device,
                                AnyMap properties) {
    properties["PERF_COUNT"] = true;
    CompiledModel compiled = core.compile_model(model, device, properties);
    const nlohmann::json split = compiled.get_property("HETERO_SPLIT");
    InferRequest r = compiled.create_infer_request();
    const std::vector<Tensor> inputs = inputs_of(compiled);
    for (size_t k = 0; k < inputs.size(); ++k) r.set_input_tensor(k, inputs[k]);
    r.infer();  // warm
    std::map<size_t, std::vector<double>> measured;
    for (int run = 0; run < 15; ++run) {
        r.infer();
        std::map<size_t, double> us;
        for (const ProfilingInfo& p : r.get_profiling_info())
            if (p.node_name.rfind("subgraph", 0) == 0)
                us[std::stoul(p.node_name.substr(8))] += static_cast<double>(p.real_time.count());
        for (const auto& [k, v] : us) measured[k].push_back(v);
    }
    std::printf("\n%-9s %-10s %5s %14s %14s %9s\n", "subgraph", "device", "ops", "predicted_us", "measured_us",
                "pred/meas");
    for (const auto& s : split["subgraphs"]) {
        const size_t k = s["id"].get<size_t>();
        const double predicted = s.value("predicted_us", 0.0), got = median(measured[k]);
        std::printf("%-9zu %-10s %5zu %14.1f %14.1f %9.2f\n", k, s["device"].get<std::string>().c_str(),
                    s["ops"].size(), predicted, got, got > 0 ? predicted / got : 0.0);
    }
}

// Inferences per second with `n` requests in flight for `seconds`.
double throughput(CompiledModel& compiled, int n, double seconds) {
    std::vector<InferRequest> requests;
    const std::vector<Tensor> inputs = inputs_of(compiled);
    for (int i = 0; i < n; ++i) {
        requests.push_back(compiled.create_infer_request());
        for (size_t k = 0; k < inputs.size(); ++k) requests.back().set_input_tensor(k, inputs[k]);
        requests.back().infer();  // warm
    }
    std::atomic<long> done{0};
    const auto t0 = Clock::now();
    const auto end = t0 + std::chrono::duration<double>(seconds);
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i)
        threads.emplace_back([&, i] {
            while (Clock::now() < end) {
                requests[i].infer();
                ++done;
            }
        });
    for (auto& t : threads) t.join();
    return static_cast<double>(done) / std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 6) {
        std::fprintf(stderr, "usage: pipeline_bench MODEL DEVICE CONFIG_JSON SECONDS N1,N2,... [DEVICE_SETTINGS_JSON]\n");
        return 2;
    }
    const std::string model_path = argv[1], device = argv[2];
    AnyMap config = to_map(nlohmann::json::parse(argv[3]));
    const double seconds = std::atof(argv[4]);
    std::vector<int> counts;
    std::stringstream list(argv[5]);
    for (std::string item; std::getline(list, item, ',');) counts.push_back(std::atoi(item.c_str()));

    Core core;
    const nlohmann::json settings = argc > 6 ? nlohmann::json::parse(argv[6]) : nlohmann::json::object();
    for (const auto& [name, values] : settings.items()) {
        const AnyMap map = to_map(values);
        core.set_property(name, map);
    }
    const auto model = core.read_model(model_path);
    std::printf("CPU: %s; load before: %s\nmodel %s on %s, properties %s%s%s\n", bench::cpu_model().c_str(),
                bench::load_average().c_str(), model_path.c_str(), device.c_str(), argv[3],
                argc > 6 ? ", devices set with " : "", argc > 6 ? argv[6] : "");
    predicted_against_measured(core, model, device, config);

    CompiledModel compiled = core.compile_model(model, device, config);
    std::printf("\n%-9s %14s %9s\n", "requests", "inferences/s", "vs 1");
    double one = 0;
    for (int n : counts) {
        const double fps = throughput(compiled, n, seconds);
        if (n == 1) one = fps;
        std::printf("%-9d %14.1f %9.2f\n", n, fps, one > 0 ? fps / one : 0.0);
    }
    std::printf("load after: %s\n", bench::load_average().c_str());
    return 0;
}
