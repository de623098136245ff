// Dynamic shapes against static: the same model compiled once with dynamic dimensions (a
// specialization per input shape, cached) and compiled static at one shape, inferred side by side
// in alternating rounds; and the first inference at a new shape (which compiles it). Prints figures;
// asserts nothing. See run.sh beside it.
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

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

Tensor image(const Shape& shape) {
    Tensor t(ElementType::f32, shape);
    for (size_t i = 0; i < t.get_size(); ++i) t.data<float>()[i] = static_cast<float>((i * 7919) % 255) / 255.0f;
    return t;
}

// Mean milliseconds per inference over `n`.
double timed(InferRequest& r, int n) {
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) r.infer();
    return ms_since(t0) / n;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: dynamic_bench MODEL.onnx DEVICE [ITERATIONS [ROUNDS]]\n");
        return 2;
    }
    const std::string path = argv[1], device = argv[2];
    const int iterations = argc > 3 ? std::atoi(argv[3]) : 20, rounds = argc > 4 ? std::atoi(argv[4]) : 5;
    std::printf("cpu: %s; load before: %s\nmodel: %s on %s, %d rounds of %d inferences each way\n",
                bench::cpu_model().c_str(), bench::load_average().c_str(), path.c_str(), device.c_str(), rounds,
                iterations);
    Core core;
    const Shape shape = {1, 3, 224, 224};
    auto static_model = core.read_model(path);
    static_model->reshape({{static_model->input().get_any_name(), shape}});
    InferRequest fixed = core.compile_model(static_model, device).create_infer_request();
    InferRequest dynamic = core.compile_model(core.read_model(path), device).create_infer_request();
    fixed.set_input_tensor(0, image(shape));
    dynamic.set_input_tensor(0, image(shape));
    auto t0 = Clock::now();
    dynamic.infer();
    std::printf("first inference at %s (compiles it): %.1f ms\n", to_string(shape).c_str(), ms_since(t0));
    timed(fixed, 3);
    timed(dynamic, 3);
    std::vector<double> s, d;
    for (int round = 0; round < rounds; ++round) {
        s.push_back(timed(fixed, iterations));
        d.push_back(timed(dynamic, iterations));
    }
    std::sort(s.begin(), s.end());
    std::sort(d.begin(), d.end());
    const double sm = s[s.size() / 2], dm = d[d.size() / 2];
    std::printf("static:  median %.3f ms per inference\ndynamic: median %.3f ms per inference (cached shape)\n"
                "dynamic / static: %.3f\n", sm, dm, dm / sm);
    for (const Shape& other : {Shape{2, 3, 160, 160}, Shape{1, 3, 320, 256}, Shape{4, 3, 96, 128}}) {
        dynamic.set_input_tensor(0, image(other));
        t0 = Clock::now();
        dynamic.infer();
        const double first = ms_since(t0);
        std::printf("new shape %s: first inference %.1f ms, then %.2f ms\n", to_string(other).c_str(), first,
                    timed(dynamic, 5));
    }
    std::printf("load after: %s\n", bench::load_average().c_str());
    return 0;
}
