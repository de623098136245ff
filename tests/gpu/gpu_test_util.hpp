// Helpers of the GPU device tests: running a model on a device by name, comparing any device with
// REFERENCE (the numerical oracle), the small CNN several suites share, and picking an op the GPU
// lacks by asking its query rather than assuming one.
#pragma once

#include "cpu/cpu_test_util.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mosaic::test::gpu {

inline constexpr double kModelAtol = 1e-4, kModelRtol = 1e-4;

// Like expect_near_all, but names the device under test in its messages.
inline void expect_near(const std::vector<float>& expected, const std::vector<float>& actual, double atol, double rtol,
                        const std::string& device, const std::string& what) {
    ASSERT_EQ(expected.size(), actual.size()) << what << " on " << device;
    int reported = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
        const double e = expected[i], a = actual[i];
        const bool ok = (std::isnan(e) && std::isnan(a)) || std::fabs(a - e) <= atol + rtol * std::fabs(e);
        if (!ok && reported++ < 5) ADD_FAILURE() << what << "[" << i << "]: REFERENCE " << e << ", " << device << " " << a;
    }
}

// Runs `model` on REFERENCE and on `device` (compiled with `properties`) with the same inputs, checks
// every output agrees, and returns the run on `device` (with its profiling records: PERF_COUNT is on).
inline RunResult expect_device_matches_reference(const std::shared_ptr<Model>& model, const std::string& device,
                                                 const Inputs& inputs, double atol = kModelAtol,
                                                 double rtol = kModelRtol, AnyMap properties = {}) {
    const RunResult ref = run_on(model, "REFERENCE", inputs);
    properties["PERF_COUNT"] = true;
    RunResult got = run_on(model, device, inputs, properties);
    EXPECT_EQ(got.outputs.size(), ref.outputs.size());
    for (size_t o = 0; o < ref.outputs.size() && o < got.outputs.size(); ++o)
        expect_near(ref.outputs[o], got.outputs[o], atol, rtol, device, "output " + std::to_string(o));
    return got;
}

// The compute ops of `model`: neither Parameter, Constant nor Result.
inline std::vector<std::string> compute_ops(const Model& model) {
    std::vector<std::string> ops;
    for (const auto& n : model.get_ops())
        if (!n->is_parameter() && !n->is_constant() && !n->is_result()) ops.push_back(n->get_friendly_name());
    return ops;
}

// The compute ops of `model` that the GPU's query does not take, with its reasons.
inline std::string unsupported_on_gpu(const std::shared_ptr<Model>& model) {
    const QueryResult q = shared_core().query_model_details(model, "GPU");
    std::string s;
    for (const std::string& op : compute_ops(*model))
        if (!q.affinity.count(op) || q.affinity.at(op) != "GPU") {
            s += "\n  " + op;
            if (q.unsupported.count(op))
                for (const auto& [device, why] : q.unsupported.at(op)) s += " (" + device + ": " + why + ")";
        }
    return s;
}

inline bool gpu_supports_all(const std::shared_ptr<Model>& model) { return unsupported_on_gpu(model).empty(); }

// Whether the GPU device is an OpenCL CPU device standing in for a GPU (PoCL in CI), where some ops
// get kernels of their own (sixteen elements a work item).
inline bool gpu_is_cpu_fallback() {
    return shared_core().get_property("GPU", "GPU_DEVICE_STATUS").get<std::string>().find("standing in") !=
           std::string::npos;
}

// "" when a profiling record of `run` names the kernel `exec_type`, else every record's kernel.
inline std::string missing_kernel(const RunResult& run, const std::string& exec_type) {
    std::string seen;
    for (const ProfilingInfo& p : run.profile) {
        if (p.exec_type == exec_type) return "";
        seen += p.node_name + ": " + p.exec_type + "; ";
    }
    return "no " + exec_type + " among: " + seen;
}

// The CNN of the model and thread tests: conv + bias + relu, a residual block (conv + bias, Add, relu),
// max pooling, global average pooling, flatten, a fully connected layer with bias, softmax.
inline constexpr int64_t kCnnClasses = 10;
inline const Shape kCnnInput = {1, 3, 16, 16};

inline std::shared_ptr<Model> small_cnn() {
    ModelBuilder b("gpu_small_cnn");
    Output x = b.parameter("x", ElementType::f32, kCnnInput);
    Output stem = b.op("Relu", {conv_bias(b, x, 3, 8, 1, "stem")}, {}, "stem/relu");
    Output block = conv_bias(b, stem, 8, 8, 3, "block");
    Output res = b.op("Relu", {b.op("Add", {block, stem}, {}, "block/residual")}, {}, "block/relu");
    Output pooled = b.op("MaxPool", {res},
                         {{"strides", "2,2"}, {"pads_begin", "0,0"}, {"pads_end", "0,0"}, {"kernel", "2,2"},
                          {"rounding_type", "floor"}, {"auto_pad", "explicit"}},
                         "maxpool", "opset1");
    Output gap = b.op("AvgPool", {pooled},
                      {{"strides", "1,1"}, {"pads_begin", "0,0"}, {"pads_end", "0,0"}, {"kernel", "8,8"},
                       {"exclude-pad", "true"}, {"rounding_type", "floor"}, {"auto_pad", "explicit"}},
                      "gap", "opset1");
    Output flat = b.op("Reshape", {gap, b.constant<int64_t>({2}, {1, -1}, "flat/shape")}, {{"special_zero", "false"}},
                       "flat");
    Output fc = b.op("MatMul", {flat, random_constant(b, {8, kCnnClasses}, 5, "fc/w")},
                     {{"transpose_a", "false"}, {"transpose_b", "false"}}, "fc");
    Output logits = b.op("Add", {fc, random_constant(b, {1, kCnnClasses}, 6, "fc/b")}, {}, "fc/bias");
    b.result(b.op("Softmax", {logits}, {{"axis", "1"}}, "softmax", "opset8"), "prob");
    return b.build();
}

// A unary f32 op without attributes that the GPU's query reports unsupported (with its reason),
// tried in a fixed order; nullopt when the GPU takes every candidate.
struct UnsupportedOp {
    std::string type;
    std::string reason;
};

inline std::optional<UnsupportedOp> op_the_gpu_lacks() {
    // The trigonometric ops this list once held all run on the GPU now, and the tests using it
    // skipped. NonZero's output shape depends on the values, so no static-shape kernel can take it
    // and the list never runs dry: once SoftSign gains a kernel, the tests that splice the op into
    // a CNN fail loudly (NonZero changes the shape) rather than skip quietly.
    for (const char* type : {"SoftSign", "NonZero"}) {
        ModelBuilder b(std::string("probe_") + type);
        Output x = b.parameter("x", ElementType::f32, {1, 4});
        b.result(b.op(type, {x}, {}, "probe"), "y");
        const QueryResult q = shared_core().query_model_details(b.build(), "GPU");
        if (q.affinity.count("probe") && q.affinity.at("probe") == "GPU") continue;
        std::string why;
        if (q.unsupported.count("probe"))
            for (const auto& [device, reason] : q.unsupported.at("probe")) why += device + ": " + reason;
        return UnsupportedOp{type, why};
    }
    return std::nullopt;
}

}  // namespace mosaic::test::gpu
