// Helpers shared by the HETERO tests: models with branches and devices to split over, inputs and
// the REFERENCE oracle, and checks of the split HETERO reports (HETERO_SPLIT, see the contract in
// plugins/hetero). Every test compares HETERO's outputs with REFERENCE alone.
#pragma once

#include "common/test_models.hpp"
#include "plugins/test_plugins.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <atomic>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <string>
#include <vector>

namespace mosaic::test::hetero {

using nlohmann::json;

inline constexpr float kTolerance = 1e-5f;

// ---- models ----

inline Attributes conv_attrs() {
    return {{"strides", "1,1"}, {"dilations", "1,1"}, {"pads_begin", "1,1"}, {"pads_end", "1,1"}, {"auto_pad", "explicit"}};
}

inline Attributes pool_attrs(int64_t k) {
    const std::string kk = std::to_string(k) + "," + std::to_string(k);
    return {{"strides", kk}, {"pads_begin", "0,0"}, {"pads_end", "0,0"}, {"kernel", kk},
            {"rounding_type", "floor"}, {"auto_pad", "explicit"}};
}

// Deterministic values in [-limit, limit): the same model on every run.
inline std::vector<float> pattern(size_t count, int seed, float limit = 0.5f) {
    std::vector<float> v(count);
    uint32_t s = 2654435761u * static_cast<uint32_t>(seed + 1);
    for (float& x : v) {
        s = s * 1664525u + 1013904223u;
        x = (static_cast<float>(s >> 8) / 16777216.0f * 2.0f - 1.0f) * limit;
    }
    return v;
}

inline Output conv(ModelBuilder& b, Output x, int64_t in_c, int64_t out_c, const std::string& name, int seed) {
    auto w = b.constant<float>({out_c, in_c, 3, 3}, pattern(static_cast<size_t>(out_c * in_c * 9), seed, 0.3f),
                               name + "/w");
    return b.op("Convolution", {x, w}, conv_attrs(), name);
}

// The bundled default CNN (<build>/models/mosaic_cnn.xml), or nullptr when the build has none.
inline std::shared_ptr<Model> default_cnn(Core& core) {
    const fs::path path = build_dir() / "models" / "mosaic_cnn.xml";
    if (!fs::exists(path)) return nullptr;
    return core.read_model(path.string());
}

// conv -> relu -> sigmoid -> conv -> relu -> tanh -> conv -> relu: ACCEL lacks Sigmoid and Tanh, so
// a greedy split alternates ACCEL / REFERENCE five times.
inline std::shared_ptr<Model> scattered_chain_model() {
    ModelBuilder b("scattered_chain");
    Output x = b.parameter("x", ElementType::f32, {1, 4, 8, 8});
    x = b.op("Relu", {conv(b, x, 4, 4, "conv1", 1)}, {}, "relu1");
    x = b.op("Sigmoid", {x}, {}, "sigmoid");
    x = b.op("Relu", {conv(b, x, 4, 4, "conv2", 2)}, {}, "relu2");
    x = b.op("Tanh", {x}, {}, "tanh");
    x = b.op("Relu", {conv(b, x, 4, 4, "conv3", 3)}, {}, "relu3");
    b.result(x, "y");
    return b.build();
}

// Two convolution branches that meet in a Concat, a gated (Sigmoid * x) branch, pooling, a
// Softmax head: every device of HETERO:ACCEL,NPU,REFERENCE has something only it or its
// successors run (Subtract runs on REFERENCE alone).
inline std::shared_ptr<Model> branchy_model() {
    ModelBuilder b("branchy");
    Output x = b.parameter("x", ElementType::f32, {1, 3, 8, 8});
    Output left = b.op("Relu", {conv(b, x, 3, 4, "left/conv", 11)}, {}, "left/relu");
    Output right = conv(b, x, 3, 4, "right/conv", 12);
    Output gate = b.op("Sigmoid", {right}, {}, "right/sigmoid");
    right = b.op("Multiply", {right, gate}, {}, "right/gated");
    Output cat = b.op("Concat", {left, right}, {{"axis", "1"}}, "concat");
    Output fused = b.op("Relu", {conv(b, cat, 8, 4, "fuse/conv", 13)}, {}, "fuse/relu");
    Output pooled = b.op("MaxPool", {fused}, pool_attrs(2), "pool");
    Output shift = b.constant<float>({1, 4, 1, 1}, {0.1f, -0.2f, 0.3f, 0.0f}, "shift");
    Output centred = b.op("Subtract", {pooled, shift}, {}, "centre");
    Output flat = b.op("Reshape", {centred, b.constant<int64_t>({2}, {1, -1}, "flat/shape")}, {{"special_zero", "false"}},
                       "flat");
    b.result(b.op("Softmax", {flat}, {{"axis", "1"}}, "prob", "opset8"), "out_prob");
    b.result(b.op("Tanh", {left}, {}, "left/tanh"), "out_left");
    return b.build();
}

// Residual blocks with a shared constant and elementwise ops between the convolutions.
inline std::shared_ptr<Model> residual_model() {
    ModelBuilder b("residual");
    Output x = b.parameter("x", ElementType::f32, {1, 4, 6, 6});
    Output scale = b.constant<float>({1, 4, 1, 1}, {0.5f, 1.5f, -1.0f, 2.0f}, "scale");
    Output h = x;
    for (int i = 0; i < 3; ++i) {
        const std::string p = "block" + std::to_string(i);
        Output y = b.op("Relu", {conv(b, h, 4, 4, p + "/conv", 20 + i)}, {}, p + "/relu");
        y = b.op("Multiply", {y, scale}, {}, p + "/scale");
        y = b.op("Clamp", {y}, {{"min", "-1.5"}, {"max", "1.5"}}, p + "/clamp");
        h = b.op("Add", {h, y}, {}, p + "/residual");
    }
    Output pooled = b.op("AvgPool", {h}, [] {
        Attributes a = pool_attrs(2);
        a.set("exclude-pad", true);
        return a;
    }(), "pool");
    b.result(b.op("Exp", {b.op("Tanh", {pooled}, {}, "tanh")}, {}, "exp"), "y");
    return b.build();
}

// ---- running and comparing ----

inline std::vector<Tensor> inputs_for(const CompiledModel& compiled, int seed = 0) {
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < compiled.inputs().size(); ++i) {
        const PortDesc& p = compiled.inputs()[i];
        inputs.push_back(Tensor::from_vector(p.shape, ElementType::f32,
                                             pattern(static_cast<size_t>(shape_size(p.shape)), seed * 31 + static_cast<int>(i), 2.0f)));
    }
    return inputs;
}

// Every output of one inference on `inputs` (inputs_for(compiled) when empty).
inline std::vector<std::vector<float>> run(CompiledModel& compiled, std::vector<Tensor> inputs = {}) {
    if (inputs.empty()) inputs = inputs_for(compiled);
    InferRequest r = compiled.create_infer_request();
    for (size_t i = 0; i < inputs.size(); ++i) r.set_input_tensor(i, inputs[i]);
    r.infer();
    std::vector<std::vector<float>> out;
    for (size_t o = 0; o < compiled.outputs().size(); ++o) out.push_back(r.get_output_tensor(o).to_vector<float>());
    return out;
}

// What REFERENCE alone computes for `model` on the inputs of `seed`.
inline std::vector<std::vector<float>> reference_outputs(Core& core, const std::shared_ptr<const Model>& model, int seed = 0) {
    CompiledModel ref = core.compile_model(model, "REFERENCE");
    return run(ref, inputs_for(ref, seed));
}

inline ::testing::AssertionResult outputs_near(const std::vector<std::vector<float>>& actual,
                                               const std::vector<std::vector<float>>& expected) {
    if (actual.size() != expected.size())
        return ::testing::AssertionFailure() << actual.size() << " outputs, expected " << expected.size();
    for (size_t o = 0; o < actual.size(); ++o) {
        if (actual[o].size() != expected[o].size())
            return ::testing::AssertionFailure() << "output " << o << " has " << actual[o].size() << " values, expected "
                                                 << expected[o].size();
        for (size_t i = 0; i < actual[o].size(); ++i) {
            const float a = actual[o][i], e = expected[o][i];
            if (!(std::fabs(a - e) <= kTolerance * std::max(1.0f, std::fabs(e))))
                return ::testing::AssertionFailure() << "output " << o << " value " << i << " is " << a << ", REFERENCE gives " << e;
        }
    }
    return ::testing::AssertionSuccess();
}

// Compiles on `device`, runs on the inputs of `seed` and compares with REFERENCE alone.
inline ::testing::AssertionResult matches_reference(Core& core, const std::shared_ptr<const Model>& model,
                                                    const std::string& device, const AnyMap& properties = {}) {
    CompiledModel compiled = core.compile_model(model, device, properties);
    return outputs_near(run(compiled), reference_outputs(core, model));
}

// ---- the split HETERO reports ----

inline bool is_boundary(const Node& n) { return n.is_parameter() || n.is_constant() || n.is_result(); }

// Friendly names of the ops that compute (not Parameter / Constant / Result).
inline std::vector<std::string> compute_ops(const Model& model) {
    std::vector<std::string> names;
    for (const auto& n : model.get_ops())
        if (!is_boundary(*n)) names.push_back(n->get_friendly_name());
    return names;
}

// HETERO_SPLIT as a JSON object (accepted as an object or as JSON text).
inline json split_of(const CompiledModel& compiled) {
    json split = compiled.get_property("HETERO_SPLIT");
    if (split.is_string()) split = json::parse(split.get<std::string>());
    return split;
}

// Checks the invariants every split must keep: subgraphs listed in topological order with
// depends_on pointing backwards (so the dependency graph is acyclic), every op of `model` that
// computes in exactly one subgraph, on the subgraph's device, as HETERO_SPLIT.affinity says;
// the device summary and the transfers agree with the subgraphs.
inline ::testing::AssertionResult split_is_consistent(const json& split, const Model& model) {
    auto fail = [&] { return ::testing::AssertionFailure() << "HETERO_SPLIT " << split.dump() << "\n  "; };
    if (!split.is_object() || !split.contains("subgraphs") || !split.contains("affinity"))
        return fail() << "has no subgraphs or affinity";
    const json& subgraphs = split["subgraphs"];
    const json& affinity = split["affinity"];
    std::map<std::string, int64_t> subgraph_of;
    std::map<int64_t, std::string> device_of;
    for (size_t i = 0; i < subgraphs.size(); ++i) {
        const json& s = subgraphs[i];
        const int64_t id = s.at("id").get<int64_t>();
        if (device_of.count(id)) return fail() << "subgraph id " << id << " appears twice";
        device_of[id] = s.at("device").get<std::string>();
        for (const auto& dep : s.at("depends_on")) {
            const int64_t d = dep.get<int64_t>();
            if (!device_of.count(d))
                return fail() << "subgraph " << id << " depends on " << d
                              << ", which is not listed before it (not topological, or a cycle)";
        }
        if (s.at("ops").empty()) return fail() << "subgraph " << id << " has no ops";
        for (const auto& op : s.at("ops")) {
            const std::string name = op.get<std::string>();
            if (subgraph_of.count(name)) return fail() << "op '" << name << "' is in subgraphs " << subgraph_of[name] << " and " << id;
            subgraph_of[name] = id;
            if (!affinity.contains(name)) return fail() << "op '" << name << "' of subgraph " << id << " has no affinity";
            if (affinity[name] != s["device"])
                return fail() << "op '" << name << "' has affinity " << affinity[name] << " but runs in subgraph " << id
                              << " on " << s["device"];
        }
    }
    for (const std::string& op : compute_ops(model))
        if (!subgraph_of.count(op)) return fail() << "op '" << op << "' is in no subgraph";
    if (split.contains("transfers")) {
        int64_t bytes = 0;
        for (const auto& t : split["transfers"]) {
            const int64_t from = t.at("from_subgraph").get<int64_t>(), to = t.at("to_subgraph").get<int64_t>();
            if (!device_of.count(from) || !device_of.count(to)) return fail() << "transfer " << t.dump() << " names an unknown subgraph";
            if (t.at("from_device") != device_of[from] || t.at("to_device") != device_of[to])
                return fail() << "transfer " << t.dump() << " disagrees with its subgraphs' devices";
            if (t["from_device"] == t["to_device"]) return fail() << "transfer " << t.dump() << " stays on one device";
            bytes += t.at("bytes").get<int64_t>();
        }
        if (split.contains("transfer_bytes") && split["transfer_bytes"].get<int64_t>() != bytes)
            return fail() << "transfer_bytes is not the sum of transfers[].bytes (" << bytes << ")";
    }
    if (split.contains("devices")) {
        for (const auto& d : split["devices"]) {
            int64_t ops = 0, count = 0;
            for (const auto& s : subgraphs)
                if (s["device"] == d.at("device")) {
                    ++count;
                    ops += static_cast<int64_t>(s["ops"].size());
                }
            if (d.at("subgraphs").get<int64_t>() != count || d.at("ops").get<int64_t>() != ops)
                return fail() << "devices entry " << d.dump() << " disagrees with the subgraphs (" << ops << " ops, "
                              << count << " subgraphs)";
        }
    }
    return ::testing::AssertionSuccess();
}

// The transfers the contract implies for `split` of `model`: one per tensor an op computes and
// each other subgraph on another device that reads it, as (tensor "name:port", from, to) -> bytes.
// Model inputs and constants are host memory every device reads, so they never cross.
inline std::map<std::tuple<std::string, int64_t, int64_t>, int64_t> expected_transfers(const json& split, const Model& model) {
    std::map<std::string, int64_t> subgraph_of;
    std::map<int64_t, std::string> device_of;
    for (const auto& s : split.at("subgraphs")) {
        device_of[s.at("id").get<int64_t>()] = s.at("device").get<std::string>();
        for (const auto& op : s.at("ops")) subgraph_of[op.get<std::string>()] = s.at("id").get<int64_t>();
    }
    std::map<std::tuple<std::string, int64_t, int64_t>, int64_t> out;
    for (const auto& consumer : model.get_ops()) {
        if (is_boundary(*consumer) || !subgraph_of.count(consumer->get_friendly_name())) continue;
        const int64_t to = subgraph_of.at(consumer->get_friendly_name());
        for (const Output& in : consumer->inputs()) {
            if (is_boundary(*in.node) || !subgraph_of.count(in.node->get_friendly_name())) continue;
            const int64_t from = subgraph_of.at(in.node->get_friendly_name());
            if (from == to || device_of.at(from) == device_of.at(to)) continue;
            out[{in.node->get_friendly_name() + ":" + std::to_string(in.index), from, to}] =
                shape_size(in.get_partial_shape()) * static_cast<int64_t>(element_size(in.get_element_type()));
        }
    }
    return out;
}

inline ::testing::AssertionResult transfers_are_as_expected(const json& split, const Model& model) {
    std::map<std::tuple<std::string, int64_t, int64_t>, int64_t> listed;
    for (const auto& t : split.at("transfers")) {
        const auto key = std::make_tuple(t.at("tensor").get<std::string>(),
                                         t.at("from_subgraph").get<int64_t>(), t.at("to_subgraph").get<int64_t>());
        if (listed.count(key)) return ::testing::AssertionFailure() << "transfer listed twice: " << t.dump();
        listed[key] = t.at("bytes").get<int64_t>();
    }
    const auto expected = expected_transfers(split, model);
    if (listed == expected) return ::testing::AssertionSuccess();
    auto describe = [](const std::map<std::tuple<std::string, int64_t, int64_t>, int64_t>& m) {
        std::string s;
        for (const auto& [k, bytes] : m)
            s += "\n    " + std::get<0>(k) + " subgraph" + std::to_string(std::get<1>(k)) + " -> subgraph" +
                 std::to_string(std::get<2>(k)) + ", " + std::to_string(bytes) + " bytes";
        return s;
    };
    return ::testing::AssertionFailure() << "HETERO_SPLIT.transfers:" << describe(listed) << "\n  expected:" << describe(expected)
                                         << "\n  split: " << split.dump();
}

// The subgraph ids of `split` on `device`.
inline std::set<int64_t> subgraphs_on(const json& split, const std::string& device) {
    std::set<int64_t> ids;
    for (const auto& s : split.at("subgraphs"))
        if (s.at("device") == device) ids.insert(s.at("id").get<int64_t>());
    return ids;
}

// ---- devices ----

// The seeds' combined mode: query_model's answer written on every op as its affinity, with
// `overrides` on top (the automatic mode is off once any op has one, so all must).
inline void set_affinities_over_query(Core& core, const std::shared_ptr<Model>& model, const std::string& device,
                                      const std::map<std::string, std::string>& overrides) {
    SupportedOpsMap affinity = core.query_model(model, device);
    for (const auto& [op, d] : overrides) affinity[op] = d;
    for (Node* node : model->get_ops()) node->get_rt_info()["affinity"] = affinity[node->get_friendly_name()];
}

// Ops each device of `devices` runs, from query_model on the device alone.
inline std::map<std::string, std::set<std::string>> supported_ops(Core& core, const std::shared_ptr<const Model>& model,
                                                                  const std::vector<std::string>& devices) {
    std::map<std::string, std::set<std::string>> out;
    for (const auto& d : devices) {
        QueryResult q = core.query_model_details(model, d);
        for (const auto& [op, device] : q.affinity)
            if (!q.unsupported.count(op)) out[d].insert(op);
    }
    return out;
}

// The first device of `priority` that supports `op`, "" when none does.
inline std::string first_supporting(const std::map<std::string, std::set<std::string>>& supported,
                                    const std::vector<std::string>& priority, const std::string& op) {
    for (const auto& d : priority)
        if (supported.count(d) && supported.at(d).count(op)) return d;
    return "";
}

// Writes the build registry's entries (REFERENCE, ACCEL, NPU, HETERO) into `reg` with their
// properties, except those named in `skip`; the caller adds its own and calls write().
inline void add_build_devices(TempRegistry& reg, const std::set<std::string>& skip = {}) {
    const fs::path file = build_registry();
    std::ifstream in(file);
    const json registry = json::parse(in);
    for (const auto& e : registry.at("plugins")) {
        const std::string device = e.at("device");
        if (skip.count(device)) continue;
        reg.add(device, (file.parent_path() / e.at("library").get<std::string>()).lexically_normal(),
                e.contains("properties") ? e["properties"] : json());
    }
}

// A fresh folder under the system's temporary folder, removed with the object.
class TempDir {
public:
    explicit TempDir(const std::string& tag) {
        static std::atomic<int> counter{0};
        path_ = fs::weakly_canonical(fs::temp_directory_path()) /
                ("mosaic-hetero-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

// The RENDEZVOUS test plugin (tests/plugins/rendezvous_plugin.cpp).
inline fs::path rendezvous_plugin() { return test_plugin_dir() / "libmosaic_test_rendezvous_plugin.so"; }

// Sets an environment variable for the object's lifetime, then restores the previous value.
class ScopedEnv {
public:
    ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
        if (const char* old = std::getenv(name_.c_str())) old_ = old;
        ::setenv(name_.c_str(), value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
        else ::unsetenv(name_.c_str());
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    std::string name_;
    std::optional<std::string> old_;
};

}  // namespace mosaic::test::hetero
