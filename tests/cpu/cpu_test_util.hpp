// Helpers of the CPU device tests: small models with fixed-seed weights, running a model on a
// device, and comparing the CPU's results with REFERENCE, the numerical oracle.
#pragma once

#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace mosaic::test {

inline Core& shared_core() {
    static Core core;
    return core;
}

inline std::vector<float> random_values(size_t n, uint32_t seed, float low = -1.0f, float high = 1.0f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(low, high);
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng);
    return v;
}

inline Tensor random_tensor(const Shape& shape, uint32_t seed) {
    return Tensor::from_vector(shape, ElementType::f32, random_values(static_cast<size_t>(shape_size(shape)), seed));
}

inline Output random_constant(ModelBuilder& b, const Shape& shape, uint32_t seed, const std::string& name = "",
                              float scale = 0.5f) {
    return b.constant<float>(shape, random_values(static_cast<size_t>(shape_size(shape)), seed, -scale, scale), name);
}

inline Attributes conv_attrs(int64_t pad = 1, int64_t stride = 1) {
    const std::string p = std::to_string(pad), s = std::to_string(stride);
    return {{"strides", s + "," + s}, {"dilations", "1,1"}, {"pads_begin", p + "," + p}, {"pads_end", p + "," + p},
            {"auto_pad", "explicit"}};
}

// Convolution `in_c` -> `out_c` with a 3x3 (or `k`) kernel and a [1, out_c, 1, 1] bias Add.
inline Output conv_bias(ModelBuilder& b, Output x, int64_t in_c, int64_t out_c, uint32_t seed, const std::string& name,
                        int64_t k = 3) {
    Output w = random_constant(b, {out_c, in_c, k, k}, seed, name + "_w");
    Output conv = b.op("Convolution", {x, w}, conv_attrs(k / 2), name);
    return b.op("Add", {conv, random_constant(b, {1, out_c, 1, 1}, seed + 1, name + "_b")}, {}, name + "_bias");
}

using Inputs = std::map<std::string, Tensor>;

// Parameters in the order of `version`: opset5 (data, gamma, beta, mean, variance), opset1 (gamma,
// beta, data, mean, variance). Variances are positive.
inline Output batch_norm(ModelBuilder& b, Output data, int64_t channels, uint32_t seed, const std::string& version,
                         const std::string& name) {
    Output gamma = random_constant(b, {channels}, seed, name + "_gamma");
    Output beta = random_constant(b, {channels}, seed + 1, name + "_beta");
    Output mean = random_constant(b, {channels}, seed + 2, name + "_mean");
    Output variance = b.op("Exp", {random_constant(b, {channels}, seed + 3, name + "_logvar")}, {}, name + "_var");
    const Attributes eps{{"epsilon", "0.001"}};
    return version == "opset5" ? b.op("BatchNormInference", {data, gamma, beta, mean, variance}, eps, name, "opset5")
                               : b.op("BatchNormInference", {gamma, beta, data, mean, variance}, eps, name, "opset1");
}

struct RunResult {
    std::vector<std::vector<float>> outputs;  // f32 outputs, in model order
    std::vector<ProfilingInfo> profile;
};

inline RunResult run_on(const std::shared_ptr<Model>& model, const std::string& device, const Inputs& inputs,
                        const AnyMap& properties = {}) {
    CompiledModel compiled = shared_core().compile_model(model, device, properties);
    InferRequest r = compiled.create_infer_request();
    for (const auto& [name, t] : inputs) r.set_tensor(name, t);
    r.infer();
    RunResult result;
    for (const Node* out : model->get_results()) result.outputs.push_back(r.get_tensor(Model::output_name(*out)).to_vector<float>());
    result.profile = r.get_profiling_info();
    return result;
}

inline void expect_near_all(const std::vector<float>& expected, const std::vector<float>& actual, double atol,
                            double rtol, const std::string& what) {
    ASSERT_EQ(expected.size(), actual.size()) << what;
    int reported = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
        const double e = expected[i], a = actual[i];
        const bool ok = (std::isnan(e) && std::isnan(a)) || std::fabs(a - e) <= atol + rtol * std::fabs(e);
        if (!ok && reported++ < 5) ADD_FAILURE() << what << "[" << i << "]: REFERENCE " << e << ", CPU " << a;
    }
}

// Runs `model` on CPU and REFERENCE with the same inputs and checks every output agrees.
inline RunResult expect_matches_reference(const std::shared_ptr<Model>& model, const Inputs& inputs,
                                          const AnyMap& cpu_properties = {{"PERF_COUNT", true}}, double atol = 1e-4,
                                          double rtol = 1e-4) {
    const RunResult ref = run_on(model, "REFERENCE", inputs);
    RunResult cpu = run_on(model, "CPU", inputs, cpu_properties);
    for (size_t o = 0; o < ref.outputs.size(); ++o)
        expect_near_all(ref.outputs[o], cpu.outputs[o], atol, rtol, "output " + std::to_string(o));
    return cpu;
}

inline std::string contents(const std::vector<ProfilingInfo>& profile) {
    std::string s;
    for (const auto& p : profile) s += "\n  " + p.node_name + " (" + p.node_type + ", " + p.exec_type + ")";
    return s;
}

// The records of the graph's own ops: without the reorders that bring blocked tensors back to plain.
inline std::vector<ProfilingInfo> op_records(const std::vector<ProfilingInfo>& profile) {
    std::vector<ProfilingInfo> ops;
    for (const auto& p : profile)
        if (p.node_type != "Reorder") ops.push_back(p);
    return ops;
}

inline size_t reorder_count(const std::vector<ProfilingInfo>& profile) {
    return profile.size() - op_records(profile).size();
}

// The message of whatever `fn` throws, or "(no error)".
inline std::string error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no error)";
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

inline const ProfilingInfo* record_named(const std::vector<ProfilingInfo>& profile, const std::string& name) {
    for (const auto& p : profile)
        if (p.node_name == name) return &p;
    return nullptr;
}

// torch's erf Gelu in the orders exporters write it (the SDK's decomposed_patterns.hpp, which the
// CPU and GPU devices both match).
enum class GeluForm { bert, half_first, half_term, inverse_sqrt2 };

// torch's erf Gelu of `x` in one of those orders, its nodes named from `prefix` (the last one
// prefix + "gelu"); `erf_out` receives the Erf's output.
inline Output decomposed_gelu(ModelBuilder& b, Output x, GeluForm form, Output* erf_out = nullptr,
                              const std::string& prefix = "") {
    Output scaled = form == GeluForm::inverse_sqrt2
                        ? b.op("Multiply", {b.constant<float>({}, {0.70710677f}), x}, {}, prefix + "scaled")
                        : b.op("Divide", {x, b.constant<float>({}, {1.4142135f})}, {}, prefix + "scaled");
    Output erf = b.op("Erf", {scaled}, {}, prefix + "erf");
    if (erf_out) *erf_out = erf;
    Output term = b.op("Add", {b.constant<float>({}, {1.0f}), erf}, {}, prefix + "plus_one");
    const Output half = b.constant<float>({}, {0.5f});
    switch (form) {
        case GeluForm::half_first:
            return b.op("Multiply", {b.op("Multiply", {x, half}, {}, prefix + "half_x"), term}, {}, prefix + "gelu");
        case GeluForm::half_term:
            return b.op("Multiply", {x, b.op("Multiply", {term, half}, {}, prefix + "half_term")}, {}, prefix + "gelu");
        default:
            return b.op("Multiply", {b.op("Multiply", {x, term}, {}, prefix + "x_term"), half}, {}, prefix + "gelu");
    }
}

struct LayerNormOptions {
    bool onnx_form = false;       // Multiply(d, Divide(1, sqrt)) and Multiply(d, d), as Mosaic's ONNX translator writes
    bool extra_reader = false;    // the centred tensor is also a model output
    bool scale_shift = true;
    Shape gamma_shape{16};
};

// torch's nn.LayerNorm export over the last axis of [2, 5, 16] (the SDK's decomposed_patterns.hpp,
// which the CPU and GPU devices both match).
inline std::shared_ptr<Model> decomposed_layer_norm(const LayerNormOptions& o) {
    ModelBuilder b("layer_norm");
    Output x = b.parameter("x", ElementType::f32, {2, 5, 16});
    Output axes = b.constant<int64_t>({1}, {-1});
    Output mean = b.op("ReduceMean", {x, axes}, {{"keep_dims", "true"}}, "mean");
    Output d = b.op("Subtract", {x, mean}, {}, "sub");
    Output sq = o.onnx_form ? b.op("Multiply", {d, d}, {}, "square")
                            : b.op("Power", {d, b.constant<float>({}, {2.0f})}, {}, "square");
    Output var = b.op("ReduceMean", {sq, axes}, {{"keep_dims", "true"}}, "var");
    Output dev = b.op("Sqrt", {b.op("Add", {var, b.constant<float>({}, {1e-5f})}, {}, "plus_eps")}, {}, "sqrt");
    Output y = o.onnx_form ? b.op("Multiply", {d, b.op("Divide", {b.constant<float>({}, {1.0f}), dev}, {}, "inv")}, {}, "norm")
                           : b.op("Divide", {d, dev}, {}, "norm");
    if (o.scale_shift) {
        y = b.op("Multiply", {random_constant(b, o.gamma_shape, 61, "gamma", 2.0f), y}, {}, "scale");
        y = b.op("Add", {y, random_constant(b, o.gamma_shape, 62, "beta")}, {}, "shift");
    }
    b.result(y, "y");
    if (o.extra_reader) b.result(d, "centred");
    return b.build();
}

// MVN-6 (OpenVINO IR's LayerNorm) over the two trailing axes of rank-4 `x`, then a Multiply by a
// gamma over both of them and an Add of a beta over the last ("shift").
inline std::shared_ptr<Model> mvn_layer_norm(const Shape& x_shape) {
    ModelBuilder b("mvn");
    Output x = b.parameter("x", ElementType::f32, x_shape);
    Output n = b.op("MVN", {x, b.constant<int64_t>({2}, {2, 3})},
                    {{"normalize_variance", "true"}, {"eps", "1e-6"}, {"eps_mode", "inside_sqrt"}}, "mvn", "opset6");
    Output y = b.op("Multiply", {n, random_constant(b, {x_shape[2], x_shape[3]}, 71, "gamma")}, {}, "scale");
    b.result(b.op("Add", {y, random_constant(b, {x_shape[3]}, 72, "beta")}, {}, "shift"), "y");
    return b.build();
}

}  // namespace mosaic::test
