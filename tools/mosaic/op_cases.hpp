// The numpy-generated op cases (format: tests/ops/README.md): loading them and comparing a result
// with a case's values. Shared by the op tests (tests/ops/op_case.hpp adds gtest's reporting) and
// `mosaic verify-plugin`, which runs every case a plugin claims against REFERENCE; so it uses
// neither gtest nor anything of the CLI.
#pragma once

#include <mosaic/attributes.hpp>
#include <mosaic/element_type.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace mosaic::op_cases {

struct OpCaseTensor {
    ElementType type = ElementType::undefined;
    Shape shape;
    bool is_const = false;
    std::vector<uint8_t> bytes;
};

struct OpCaseSpec {
    std::string id;  // file stem + case name: [A-Za-z0-9_], usable as a gtest name
    std::string op, version;
    Attributes attrs;
    std::vector<OpCaseTensor> inputs, outputs;
    double rtol = 1e-5, atol = 1e-6;
    std::string error;  // non-empty: shape inference must fail with this text
};

inline double json_number(const nlohmann::json& v) {
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
        if (s == "inf") return std::numeric_limits<double>::infinity();
        if (s == "-inf") return -std::numeric_limits<double>::infinity();
        throw std::runtime_error("bad number '" + s + "' in op case");
    }
    if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
    return v.get<double>();
}

inline void store(ElementType t, double x, uint8_t* p) {
    switch (t) {
        case ElementType::f32: { float f = static_cast<float>(x); std::memcpy(p, &f, 4); break; }
        case ElementType::f64: std::memcpy(p, &x, 8); break;
        case ElementType::f16: { uint16_t h = f32_to_f16(static_cast<float>(x)); std::memcpy(p, &h, 2); break; }
        case ElementType::bf16: { uint16_t h = f32_to_bf16(static_cast<float>(x)); std::memcpy(p, &h, 2); break; }
        case ElementType::i8: { int8_t v = static_cast<int8_t>(x); std::memcpy(p, &v, 1); break; }
        case ElementType::u8: case ElementType::boolean: { uint8_t v = static_cast<uint8_t>(x); *p = v; break; }
        case ElementType::i16: { int16_t v = static_cast<int16_t>(x); std::memcpy(p, &v, 2); break; }
        case ElementType::u16: { uint16_t v = static_cast<uint16_t>(x); std::memcpy(p, &v, 2); break; }
        case ElementType::i32: { int32_t v = static_cast<int32_t>(x); std::memcpy(p, &v, 4); break; }
        case ElementType::u32: { uint32_t v = static_cast<uint32_t>(x); std::memcpy(p, &v, 4); break; }
        case ElementType::i64: { int64_t v = static_cast<int64_t>(x); std::memcpy(p, &v, 8); break; }
        case ElementType::u64: { uint64_t v = static_cast<uint64_t>(x); std::memcpy(p, &v, 8); break; }
        case ElementType::undefined: break;
    }
}

inline double load(ElementType t, const uint8_t* p) {
    switch (t) {
        case ElementType::f32: { float f; std::memcpy(&f, p, 4); return f; }
        case ElementType::f64: { double d; std::memcpy(&d, p, 8); return d; }
        case ElementType::f16: { uint16_t h; std::memcpy(&h, p, 2); return f16_to_f32(h); }
        case ElementType::bf16: { uint16_t h; std::memcpy(&h, p, 2); return bf16_to_f32(h); }
        case ElementType::i8: return static_cast<int8_t>(*p);
        case ElementType::u8: case ElementType::boolean: return *p;
        case ElementType::i16: { int16_t v; std::memcpy(&v, p, 2); return v; }
        case ElementType::u16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
        case ElementType::i32: { int32_t v; std::memcpy(&v, p, 4); return v; }
        case ElementType::u32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
        case ElementType::i64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
        case ElementType::u64: { uint64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
        case ElementType::undefined: break;
    }
    return 0;
}

inline OpCaseTensor parse_tensor(const nlohmann::json& j) {
    OpCaseTensor t;
    t.type = element_type_from_string(j.at("type").get<std::string>());
    if (t.type == ElementType::undefined) throw std::runtime_error("bad type in op case: " + j.dump());
    t.shape = j.at("shape").get<Shape>();
    t.is_const = j.value("const", false);
    const auto& data = j.at("data");
    const size_t n = static_cast<size_t>(shape_size(t.shape));
    if (data.size() != n)
        throw std::runtime_error("op case tensor has " + std::to_string(data.size()) + " values for shape " +
                                 to_string(t.shape));
    t.bytes.resize(n * element_size(t.type));
    for (size_t i = 0; i < n; ++i) store(t.type, json_number(data[i]), t.bytes.data() + i * element_size(t.type));
    return t;
}

inline std::string sanitize(const std::string& s) {
    std::string out;
    for (char ch : s) out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    return out;
}

// Loads every *.json under `dir`. A malformed file throws, naming the file.
inline std::vector<OpCaseSpec> load_op_cases(const std::string& dir) {
    std::vector<OpCaseSpec> cases;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
        std::ifstream in(file);
        nlohmann::json doc;
        try {
            doc = nlohmann::json::parse(in);
            for (const auto& j : doc.at("cases")) {
                OpCaseSpec c;
                c.id = sanitize(file.stem().string() + "_" + j.at("name").get<std::string>());
                c.op = j.at("op").get<std::string>();
                c.version = j.value("version", "opset1");
                const nlohmann::json attrs = j.value("attrs", nlohmann::json::object());
                for (const auto& [k, v] : attrs.items())
                    c.attrs.set(k, v.is_string() ? v.get<std::string>() : v.dump());
                const nlohmann::json inputs = j.value("inputs", nlohmann::json::array());
                const nlohmann::json outputs = j.value("outputs", nlohmann::json::array());
                for (const auto& t : inputs) c.inputs.push_back(parse_tensor(t));
                for (const auto& t : outputs) c.outputs.push_back(parse_tensor(t));
                c.rtol = j.value("rtol", 1e-5);
                c.atol = j.value("atol", 1e-6);
                c.error = j.value("error", "");
                cases.push_back(std::move(c));
            }
        } catch (const std::exception& e) {
            throw std::runtime_error("op case file " + file.string() + ": " + e.what());
        }
    }
    return cases;
}

// Element i of `actual` against `expected` (same type): NaN equals NaN; floats within
// atol + rtol * |expected|; other types exactly.
inline bool close_at(const OpCaseTensor& expected, const void* actual, size_t i, double rtol, double atol,
                     double& e, double& a) {
    const size_t esize = element_size(expected.type);
    e = load(expected.type, expected.bytes.data() + i * esize);
    a = load(expected.type, static_cast<const uint8_t*>(actual) + i * esize);
    return is_floating(expected.type)
               ? ((std::isnan(e) && std::isnan(a)) || e == a || std::fabs(a - e) <= atol + rtol * std::fabs(e))
               : a == e;
}

// Up to `limit` mismatches as "what[i]: expected E, got A", one per entry; empty when all agree.
inline std::vector<std::string> mismatches(const OpCaseTensor& expected, const void* actual, double rtol, double atol,
                                           const std::string& what, size_t limit = 5) {
    std::vector<std::string> out;
    const size_t n = expected.bytes.size() / element_size(expected.type);
    for (size_t i = 0; i < n && out.size() < limit; ++i) {
        double e = 0, a = 0;
        if (!close_at(expected, actual, i, rtol, atol, e, a))
            out.push_back(what + "[" + std::to_string(i) + "]: expected " + std::to_string(e) + ", got " + std::to_string(a));
    }
    return out;
}

}  // namespace mosaic::op_cases
