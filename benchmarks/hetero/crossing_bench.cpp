// What a crossing between two GPU instances costs on each path HETERO can take (docs/hetero.md,
// "Where crossing tensors live"): x -> Relu (GPU.0) -> *3 (GPU.1) -> +1 (GPU.0), two crossings of
// one tensor each, at several tensor sizes, with
//   device-to-device  HETERO_CROSSING_MEMORY DEVICE: the tensor copied GPU.0 -> GPU.1 -> GPU.0 in
//                     device memory (AUTO's choice on discrete GPUs),
//   host-staged       HETERO_CROSSING_MEMORY HOST and GPU_ZERO_COPY NO: each instance copies it into
//                     and out of host memory, as discrete GPUs would through the host,
//   zero-copy         the defaults on a device sharing host memory (PoCL): AUTO leaves crossings in
//                     host memory and the GPU reads them in place,
// and the whole model on GPU.0 alone (GPU_ZERO_COPY NO) for scale. Rounds alternate the paths; the median round is
// printed. Prints figures; asserts nothing. Needs two OpenCL devices: see crossings.sh.
#include "common/machine.hpp"

#include <mosaic/mosaic.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace mosaic;
using Clock = std::chrono::steady_clock;

namespace {

std::shared_ptr<Model> chain(int64_t elements, bool split) {
    ModelBuilder b("crossings");
    Output x = b.parameter("x", ElementType::f32, {1, elements});
    Output a = b.op("Relu", {x}, {}, "a");
    Output m = b.op("Multiply", {a, b.constant<float>({1}, {3.0f}, "three")}, {}, "b");
    b.result(b.op("Add", {m, b.constant<float>({1}, {1.0f}, "one")}, {}, "c"), "y");
    auto model = b.build();
    for (Node* n : model->get_ops())
        n->get_rt_info()["affinity"] = split && (n->get_friendly_name() == "b" || n->get_friendly_name() == "three") ? "GPU.1" : "GPU.0";
    return model;
}

struct Path {
    const char* name;
    std::string device;
    AnyMap properties;
    std::vector<double> rounds;  // microseconds per inference
};

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
    Core core;
    std::printf("CPU: %s; load average before: %s\n", bench::cpu_model().c_str(), bench::load_average().c_str());
    std::printf("GPU.0: %s\n", core.get_property("GPU.0", "FULL_DEVICE_NAME").get<std::string>().c_str());
    std::printf("%-12s %12s %16s %12s %10s %12s %14s\n", "elements", "GPU.0 alone", "device-to-device", "host-staged",
                "zero-copy", "staged/d2d", "d2d/GPU alone");
    for (const int64_t elements : {int64_t{1} << 10, int64_t{1} << 16, int64_t{1} << 20, int64_t{1} << 22}) {
        const AnyMap copies = {{"GPU", AnyMap{{"GPU_ZERO_COPY", false}}}};
        std::vector<Path> paths = {
            {"GPU.0 alone", "GPU.0", {{"GPU_ZERO_COPY", false}}, {}},
            {"device-to-device", "HETERO:GPU.0,GPU.1", {{"HETERO_CROSSING_MEMORY", "DEVICE"}, {"DEVICE_PROPERTIES", copies}}, {}},
            {"host-staged", "HETERO:GPU.0,GPU.1", {{"HETERO_CROSSING_MEMORY", "HOST"}, {"DEVICE_PROPERTIES", copies}}, {}},
            {"zero-copy", "HETERO:GPU.0,GPU.1", {}, {}}};
        std::vector<float> data(static_cast<size_t>(elements));
        for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i % 17) - 8.f;
        const Tensor x = Tensor::from_vector({1, elements}, ElementType::f32, data);
        std::vector<CompiledModel> compiled;
        std::vector<InferRequest> requests;
        for (Path& p : paths) {
            compiled.push_back(core.compile_model(chain(elements, p.device != "GPU.0"), p.device, p.properties));
            requests.push_back(compiled.back().create_infer_request());
            requests.back().set_tensor("x", x);
            requests.back().infer();  // warm-up: buffers, kernels
        }
        const int iterations = elements >= (int64_t{1} << 20) ? 10 : 100;
        for (int r = 0; r < rounds; ++r)
            for (size_t p = 0; p < paths.size(); ++p) {
                const auto t0 = Clock::now();
                for (int i = 0; i < iterations; ++i) requests[p].infer();
                paths[p].rounds.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / iterations);
            }
        std::vector<double> median;
        for (Path& p : paths) {
            std::sort(p.rounds.begin(), p.rounds.end());
            median.push_back(p.rounds[p.rounds.size() / 2]);
        }
        std::printf("%-12lld %10.1f us %13.1f us %9.1f us %7.1f us %12.2f %14.2f\n", static_cast<long long>(elements),
                    median[0], median[1], median[2], median[3], median[2] / median[1], median[1] / median[0]);
    }
    std::printf("load average after: %s\n", bench::load_average().c_str());
    return 0;
}
