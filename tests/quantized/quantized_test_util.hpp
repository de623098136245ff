// Small QDQ models as ONNX Runtime's quantizer writes them (QuantizeLinear -> DequantizeLinear
// around each op, i8 weights and i32 biases dequantized from initializers), built in code so that
// each test states its graph, and read through Mosaic's ONNX reader as a user's model would be.
#pragma once

#include "onnx/onnx_model_builder.hpp"

#include <mosaic/mosaic.hpp>
#include <mosaic/onnx.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace mosaic::test {

// An initializer of any element type from its raw little-endian bytes.
template <typename T>
inline void add_raw_initializer(::onnx::ModelProto& m, const std::string& name, int32_t type,
                                const std::vector<int64_t>& dims, const std::vector<T>& values) {
    auto* t = m.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (int64_t d : dims) t->add_dims(d);
    t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)));
}

class QdqModel {
public:
    explicit QdqModel(int64_t opset = 13) : m_(onnx_model(opset)) {}

    ::onnx::ModelProto& proto() { return m_; }

    void input(const std::string& name, const std::vector<int64_t>& dims) { add_input(m_, name, dims); }
    void output(const std::string& name, const std::vector<int64_t>& dims) { add_output(m_, name, dims); }

    // x -> QuantizeLinear -> DequantizeLinear with one scale and zero point (u8, or i8 when `is_signed`):
    // the f32 tensor ONNX Runtime's next op reads. Returns its name.
    std::string qdq(const std::string& x, float scale, int zero_point, bool is_signed = false) {
        const std::string id = next("qdq");
        add_initializer(m_, id + "_scale", {}, {scale});
        if (is_signed)
            add_raw_initializer<int8_t>(m_, id + "_zp", ::onnx::TensorProto::INT8, {}, {static_cast<int8_t>(zero_point)});
        else
            add_raw_initializer<uint8_t>(m_, id + "_zp", ::onnx::TensorProto::UINT8, {}, {static_cast<uint8_t>(zero_point)});
        add_node(m_, "QuantizeLinear", {x, id + "_scale", id + "_zp"}, {id + "_q"}, id + "_quantize");
        add_node(m_, "DequantizeLinear", {id + "_q", id + "_scale", id + "_zp"}, {id}, id + "_dequantize");
        return id;
    }

    // i8 weights of `dims` dequantized with zero points 0 and one scale per index along `axis`
    // (per tensor when `axis` < 0). Values drawn from `seed`; returns the f32 tensor's name.
    std::string weights(const std::vector<int64_t>& dims, uint32_t seed, int64_t axis) {
        const std::string id = next("w");
        int64_t count = 1;
        for (int64_t d : dims) count *= d;
        std::mt19937 rng(seed);
        std::uniform_int_distribution<int> dist(-127, 127);
        std::vector<int8_t> q(static_cast<size_t>(count));
        for (int8_t& v : q) v = static_cast<int8_t>(dist(rng));
        add_raw_initializer<int8_t>(m_, id + "_q", ::onnx::TensorProto::INT8, dims, q);
        const int64_t scales = axis < 0 ? 1 : dims[static_cast<size_t>(axis)];
        std::vector<float> scale(static_cast<size_t>(scales));
        for (size_t i = 0; i < scale.size(); ++i) scale[i] = 0.002f * static_cast<float>(1 + (i + seed) % 7);
        const std::vector<int64_t> param_dims = axis < 0 ? std::vector<int64_t>{} : std::vector<int64_t>{scales};
        add_initializer(m_, id + "_scale", param_dims, scale);
        add_raw_initializer<int8_t>(m_, id + "_zp", ::onnx::TensorProto::INT8, param_dims,
                                    std::vector<int8_t>(static_cast<size_t>(scales), 0));
        auto* dq = add_node(m_, "DequantizeLinear", {id + "_q", id + "_scale", id + "_zp"}, {id}, id + "_dequantize");
        if (axis >= 0) set_int(dq, "axis", axis);
        return id;
    }

    // An i32 bias of `count` values dequantized with `scale` (the product of input and weight scales
    // in ONNX Runtime's models; any scale here).
    std::string bias(int64_t count, float scale, uint32_t seed) {
        const std::string id = next("b");
        std::mt19937 rng(seed);
        std::uniform_int_distribution<int32_t> dist(-2000, 2000);
        std::vector<int32_t> q(static_cast<size_t>(count));
        for (int32_t& v : q) v = dist(rng);
        add_raw_initializer<int32_t>(m_, id + "_q", ::onnx::TensorProto::INT32, {count}, q);
        add_initializer(m_, id + "_scale", {}, {scale});
        add_node(m_, "DequantizeLinear", {id + "_q", id + "_scale"}, {id}, id + "_dequantize");
        return id;
    }

    std::string conv(const std::string& x, const std::string& w, const std::string& b, int64_t kernel, int64_t group = 1) {
        const std::string id = next("conv");
        std::vector<std::string> in{x, w};
        if (!b.empty()) in.push_back(b);
        auto* n = add_node(m_, "Conv", in, {id}, id);
        const int64_t pad = kernel / 2;
        set_ints(n, "pads", {pad, pad, pad, pad});
        set_ints(n, "kernel_shape", {kernel, kernel});
        if (group != 1) set_int(n, "group", group);
        return id;
    }

    std::string op(const std::string& type, const std::vector<std::string>& in) {
        const std::string id = next(type);
        add_node(m_, type, in, {id}, id);
        return id;
    }

    // Names the last node's output `name` (a graph output, or what a later node reads).
    void name_last(const std::string& name) { m_.mutable_graph()->mutable_node()->rbegin()->set_output(0, name); }

    // The last node's output as the graph's output `name`, then read().
    std::shared_ptr<Model> finish(const std::string& name, const std::vector<int64_t>& dims, const std::string& file_name) {
        name_last(name);
        output(name, dims);
        return read(file_name);
    }

    // Writes the model and reads it back as Mosaic would read the user's file.
    std::shared_ptr<Model> read(const std::string& file_name) {
        const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                           (file_name + "_" + std::to_string(::getpid()) + ".onnx");
        save(m_, path.string());
        std::shared_ptr<Model> model = onnx::read_onnx(path.string());
        std::filesystem::remove(path);
        return model;
    }

private:
    std::string next(const std::string& what) { return what + std::to_string(counter_++); }

    ::onnx::ModelProto m_;
    int counter_ = 0;
};

}  // namespace mosaic::test
