// The host's cost per inference: the bundled CNN, and models too small for the device to matter
// (a 1x4 Add) in each form an infer request runs (static, dynamic at a cached shape, cut at a
// data-dependent op, stateful), synchronously and start_async + wait. Rounds alternate the forms;
// the median round is printed. Prints figures; asserts nothing. See run.sh beside it.
#include "common/machine.hpp"

#include <mosaic/mosaic.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

using namespace mosaic;
using Clock = std::chrono::steady_clock;

namespace {

// y = x + 1, at `shape` (dimensions -1 make it a dynamic model).
std::shared_ptr<Model> add_one(const Shape& shape) {
    ModelBuilder b("add_one");
    Output x = b.parameter("x", ElementType::f32, shape);
    b.result(b.op("Add", {x, b.constant<float>({}, {1.0f}, "one")}, {}, "add"), "y");
    return b.build();
}

// y = x[x > 0] + 1: cut at NonZero, the rest compiled per count.
std::shared_ptr<Model> positives() {
    ModelBuilder b("positives");
    Output x = b.parameter("x", ElementType::f32, {1, 4});
    Output mask = b.op("Greater", {x, b.constant<float>({}, {0.0f}, "zero")}, {}, "mask");
    Output where = b.op("NonZero", {mask}, {{"output_type", "i64"}}, "where");
    Output idx = b.op("Transpose", {where, b.constant<int64_t>({2}, {1, 0}, "perm")}, {}, "idx");
    Output y = b.op("GatherND", {x, idx}, {{"batch_dims", "0"}}, "gather", "opset8");
    b.result(b.op("Add", {y, b.constant<float>({}, {1.0f}, "one")}, {}, "add"), "y");
    return b.build();
}

// y = x + acc; acc = y.
std::shared_ptr<Model> running_sum() {
    ModelBuilder b("running_sum");
    Output x = b.parameter("x", ElementType::f32, {1, 4});
    Output acc = b.op("ReadValue", {b.constant<float>({1, 4}, {0, 0, 0, 0}, "init")}, {{"variable_id", "acc"}}, "read",
                      "opset6");
    Output sum = b.op("Add", {x, acc}, {}, "sum");
    b.op("Assign", {sum}, {{"variable_id", "acc"}}, "write", "opset6");
    b.result(sum, "y");
    return b.build();
}

struct Case {
    std::string name;
    InferRequest request;
    bool async;
    int iterations;
    std::vector<double> rounds;  // microseconds per inference
};

double per_inference_us(Case& c) {
    const auto t0 = Clock::now();
    for (int i = 0; i < c.iterations; ++i) {
        if (c.async) {
            c.request.start_async();
            c.request.wait();
        } else {
            c.request.infer();
        }
    }
    return std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / c.iterations;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: overhead_bench BUNDLED_MODEL.xml DEVICE [ROUNDS [FORM_SUBSTRING]]\n");
        return 2;
    }
    const std::string bundled = argv[1], device = argv[2];
    const int rounds = argc > 3 ? std::atoi(argv[3]) : 9;
    const std::string only = argc > 4 ? argv[4] : "";  // runs the forms whose name holds it
    std::printf("cpu: %s; load before: %s\ndevice: %s, %d rounds, median round printed\n", bench::cpu_model().c_str(),
                bench::load_average().c_str(), device.c_str(), rounds);

    Core core;
    const Tensor x = Tensor::from_vector<float>({1, 4}, ElementType::f32, {1, -2, 3, -4});
    auto request = [&](std::shared_ptr<Model> model) {
        InferRequest r = core.compile_model(model, device).create_infer_request();
        if (model->get_friendly_name() != "bundled") r.set_tensor("x", x);
        r.infer();  // compiles a dynamic model's shape; warms caches
        return r;
    };
    auto cnn = core.read_model(bundled);
    cnn->set_friendly_name("bundled");
    std::vector<Case> cases;
    auto add = [&](const std::string& name, const std::function<std::shared_ptr<Model>()>& model, bool async,
                   int iterations) {
        if (name.find(only) != std::string::npos) cases.push_back({name, request(model()), async, iterations, {}});
    };
    for (bool async : {false, true}) {
        const std::string how = async ? " async" : " sync";
        add("bundled CNN" + how, [&] { return cnn; }, async, 50);
        add("Add 1x4 static" + how, [] { return add_one({1, 4}); }, async, 2000);
        add("Add 1x4 dynamic" + how, [] { return add_one({-1, 4}); }, async, 2000);
        add("NonZero cut" + how, positives, async, 1000);
        add("stateful" + how, running_sum, async, 2000);
    }
    for (int round = 0; round < rounds; ++round)
        for (Case& c : cases) c.rounds.push_back(per_inference_us(c));
    std::printf("%-24s %12s\n", "form", "us/inference");
    for (Case& c : cases) {
        std::sort(c.rounds.begin(), c.rounds.end());
        std::printf("%-24s %12.2f\n", c.name.c_str(), c.rounds[c.rounds.size() / 2]);
    }
    std::printf("load after: %s\n", bench::load_average().c_str());
    return 0;
}
