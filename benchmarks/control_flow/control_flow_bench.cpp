// Run-time control flow against its static forms (see run.sh beside it). Prints figures; asserts
// nothing.
//   If: the nested-If streaming model (tools/models/make_control_flow_models.py) with the sample
//   rate an input (a run-time If: the host reads the condition and runs the branch on its own
//   request), against the same model read with the rate given as a value (the If inlined when the
//   model is read). The inner If, on the chunk's level, runs at run time in both, so the difference
//   is the outer If's cost: a cut of the model and a request of its own. Alternating rounds; medians.
//   Loop: the counted loop of the loop model at trip counts 1 and 101: the cost of one iteration
//   (the body's inference on its request, the host's copies of the carried and stacked values).
#include "common/machine.hpp"

#include <mosaic/mosaic.hpp>
#include <mosaic/onnx.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace mosaic;
using Clock = std::chrono::steady_clock;

namespace {

// Mean milliseconds per inference over `n`.
double timed(InferRequest& r, int n) {
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) r.infer();
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / n;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

Tensor zeros(const Shape& shape) {
    Tensor t(ElementType::f32, shape);
    std::fill(t.data<float>(), t.data<float>() + t.get_size(), 0.0f);
    return t;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: control_flow_bench MODELS_DIR DEVICE [ITERATIONS [ROUNDS]]\n");
        return 2;
    }
    const std::string dir = argv[1], device = argv[2];
    const int iterations = argc > 3 ? std::stoi(argv[3]) : 200, rounds = argc > 4 ? std::stoi(argv[4]) : 5;
    std::printf("cpu: %s; load before: %s\ndevice: %s, %d rounds of %d inferences each way\n",
                bench::cpu_model().c_str(), bench::load_average().c_str(), device.c_str(), rounds,
                iterations);
    Core core;

    // If: run-time against inlined, on a loud 16 kHz chunk (both Ifs take their LSTM branch). A
    // device without an LSTM (the GPU) says so, and the Loop is measured all the same.
    try {
        const std::string vad = dir + "/nested_if/model.onnx";
        const Tensor chunk = onnx::read_tensor_file(dir + "/nested_if/16000/chunk_0.pb");
        const Tensor rate = Tensor::from_vector<int64_t>({}, ElementType::i64, {16000});
        onnx::ReadOptions inlined;
        inlined.input_shapes["x"] = {1, 512};
        inlined.input_values["sr"] = rate;
        onnx::ReadOptions run_time;
        run_time.input_shapes["x"] = {1, 512};
        InferRequest dynamic = core.compile_model(onnx::read_onnx(vad, run_time), device).create_infer_request();
        InferRequest fixed = core.compile_model(onnx::read_onnx(vad, inlined), device).create_infer_request();
        for (InferRequest* r : {&dynamic, &fixed}) {
            r->set_tensor("x", chunk);
            r->set_tensor("h", zeros({1, 1, 16}));
            r->set_tensor("c", zeros({1, 1, 16}));
        }
        dynamic.set_tensor("sr", rate);
        std::vector<double> run_ms, inlined_ms;
        for (int k = 0; k < rounds; ++k) {
            timed(dynamic, 5);
            run_ms.push_back(timed(dynamic, iterations));
            timed(fixed, 5);
            inlined_ms.push_back(timed(fixed, iterations));
        }
        const double a = median(run_ms), b = median(inlined_ms);
        std::printf("outer If (16 kHz chunk): run-time %.4f ms, inlined when read %.4f ms per inference: ratio %.2f, "
                    "%.1f us more\n", a, b, a / b, (a - b) * 1000);
    } catch (const std::exception& e) {
        std::printf("If: not measured on %s: %s\n", device.c_str(), e.what());
    }

    // Loop: the counted loop at 1 and 101 iterations (the while loop runs none: its limit is 0).
    const std::string loops = dir + "/loop/model.onnx";
    InferRequest loop = core.compile_model(core.read_model(loops), device).create_infer_request();
    loop.set_tensor("x", onnx::read_tensor_file(dir + "/loop/case_0/x.pb"));
    loop.set_tensor("limit", Tensor::from_vector<float>({}, ElementType::f32, {0.0f}));
    std::vector<double> one, many;
    const int long_count = 101, loop_iterations = std::max(1, iterations / 10);
    for (int k = 0; k < rounds; ++k) {
        loop.set_tensor("n", Tensor::from_vector<int64_t>({}, ElementType::i64, {1}));
        timed(loop, 2);
        one.push_back(timed(loop, loop_iterations));
        loop.set_tensor("n", Tensor::from_vector<int64_t>({}, ElementType::i64, {long_count}));
        timed(loop, 2);
        many.push_back(timed(loop, loop_iterations));
    }
    const double t1 = median(one), t101 = median(many);
    std::printf("Loop (8-wide MatMul + Tanh body): 1 iteration %.4f ms, %d iterations %.4f ms per inference: "
                "%.2f us per iteration\n", t1, long_count, t101, (t101 - t1) * 1000 / (long_count - 1));
    std::printf("load after: %s\n", bench::load_average().c_str());
    return 0;
}
