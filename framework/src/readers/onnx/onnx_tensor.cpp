#include "readers/onnx/onnx_tensor.hpp"

#include <mosaic/onnx.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>

namespace mosaic::onnx_import {

namespace {

namespace fs = std::filesystem;

using ::onnx::TensorProto;

[[noreturn]] void fail(const std::string& where, const std::string& message) {
    throw ModelError(where + ": " + message);
}

// Copies typed values of one repeated field into the element type's layout.
template <typename Field>
std::vector<uint8_t> pack(const Field& values, ElementType type, const std::string& where) {
    std::vector<uint8_t> out(static_cast<size_t>(values.size()) * element_size(type));
    uint8_t* p = out.data();
    for (const auto v : values) {
        switch (type) {
            case ElementType::f32: { float x = static_cast<float>(v); std::memcpy(p, &x, 4); break; }
            case ElementType::f64: { double x = static_cast<double>(v); std::memcpy(p, &x, 8); break; }
            case ElementType::i8: { int8_t x = static_cast<int8_t>(v); std::memcpy(p, &x, 1); break; }
            case ElementType::u8: case ElementType::boolean: { uint8_t x = static_cast<uint8_t>(v); std::memcpy(p, &x, 1); break; }
            case ElementType::i16: { int16_t x = static_cast<int16_t>(v); std::memcpy(p, &x, 2); break; }
            // f16 and bf16 values travel as their 16-bit patterns in int32_data.
            case ElementType::u16: case ElementType::f16: case ElementType::bf16: {
                uint16_t x = static_cast<uint16_t>(v); std::memcpy(p, &x, 2); break;
            }
            case ElementType::i32: { int32_t x = static_cast<int32_t>(v); std::memcpy(p, &x, 4); break; }
            case ElementType::u32: { uint32_t x = static_cast<uint32_t>(v); std::memcpy(p, &x, 4); break; }
            case ElementType::i64: { int64_t x = static_cast<int64_t>(v); std::memcpy(p, &x, 8); break; }
            case ElementType::u64: { uint64_t x = static_cast<uint64_t>(v); std::memcpy(p, &x, 8); break; }
            default: fail(where, std::string("cannot hold values of type ") + to_string(type));
        }
        p += element_size(type);
    }
    return out;
}

std::vector<uint8_t> typed_values(const TensorProto& t, ElementType type, const std::string& where) {
    switch (t.data_type()) {
        case TensorProto::FLOAT: return pack(t.float_data(), type, where);
        case TensorProto::DOUBLE: return pack(t.double_data(), type, where);
        case TensorProto::INT64: return pack(t.int64_data(), type, where);
        case TensorProto::UINT32: case TensorProto::UINT64: return pack(t.uint64_data(), type, where);
        default: return pack(t.int32_data(), type, where);
    }
}

// An external_data "offset" or "length": a non-negative decimal integer (std::stoll alone would
// accept "12abc" and throw a bare "stoll" for "abc").
int64_t external_number(const std::string& key, const std::string& text, const std::string& where) {
    size_t used = 0;
    int64_t value = -1;
    try {
        value = std::stoll(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (text.empty() || used != text.size() || value < 0)
        fail(where, "external data '" + key + "' is '" + text + "', not a non-negative integer");
    return value;
}

std::vector<uint8_t> external_values(const TensorProto& t, const std::string& base_dir, const std::string& where) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto& entry : t.external_data()) {
        if (entry.key() == "location") location = entry.value();
        else if (entry.key() == "offset") offset = external_number("offset", entry.value(), where);
        else if (entry.key() == "length") length = external_number("length", entry.value(), where);
    }
    if (location.empty()) fail(where, "external data has no 'location'");
    // As ONNX Runtime does: a model file must not make the reader open files outside its folder
    // (a downloaded model naming ../../etc/passwd or /etc/shadow). Absolute paths and ".." parts
    // are refused outright; a symbolic link inside the folder that leads out is refused too.
    const fs::path relative(location);
    bool climbs = false;
    for (const auto& part : relative) climbs = climbs || part == "..";
    if (relative.is_absolute() || relative.has_root_path() || climbs)
        fail(where, "external data location '" + location +
                        "' must be a relative path inside the model's folder (no absolute path, no '..')");
    std::error_code ec;
    const fs::path folder = fs::weakly_canonical(base_dir.empty() ? "." : base_dir, ec);
    const fs::path resolved = fs::weakly_canonical(folder / relative, ec);
    const auto [end, unused] = std::mismatch(folder.begin(), folder.end(), resolved.begin(), resolved.end());
    (void)unused;
    if (end != folder.end())
        fail(where, "external data location '" + location + "' resolves to '" + resolved.string() +
                        "', outside the model's folder '" + folder.string() + "' (through a symbolic link)");
    const std::string path = base_dir + "/" + location;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail(where, "external data file '" + path + "' cannot be opened (" + std::strerror(errno) +
                        "); keep it beside the model");
    in.seekg(0, std::ios::end);
    const int64_t file_size = static_cast<int64_t>(in.tellg());
    if (length < 0) length = file_size - offset;
    if (offset < 0 || offset + length > file_size)
        fail(where, "external data [" + std::to_string(offset) + ", " + std::to_string(offset + length) +
                        ") lies outside '" + path + "' (" + std::to_string(file_size) + " bytes)");
    std::vector<uint8_t> out(static_cast<size_t>(length));
    in.seekg(offset);
    in.read(reinterpret_cast<char*>(out.data()), length);
    if (!in) fail(where, "cannot read external data from '" + path + "'");
    return out;
}

}  // namespace

const char* onnx_type_name(int32_t onnx_type) {
    return TensorProto::DataType_IsValid(onnx_type)
               ? TensorProto::DataType_Name(static_cast<TensorProto::DataType>(onnx_type)).c_str()
               : "INVALID";
}

namespace {

// The ONNX data types Mosaic reads, and the element type each becomes.
constexpr std::pair<int32_t, ElementType> kTypes[] = {
    {TensorProto::FLOAT, ElementType::f32},   {TensorProto::DOUBLE, ElementType::f64},
    {TensorProto::FLOAT16, ElementType::f16}, {TensorProto::BFLOAT16, ElementType::bf16},
    {TensorProto::INT8, ElementType::i8},     {TensorProto::UINT8, ElementType::u8},
    {TensorProto::INT16, ElementType::i16},   {TensorProto::UINT16, ElementType::u16},
    {TensorProto::INT32, ElementType::i32},   {TensorProto::UINT32, ElementType::u32},
    {TensorProto::INT64, ElementType::i64},   {TensorProto::UINT64, ElementType::u64},
    {TensorProto::BOOL, ElementType::boolean}};

}  // namespace

int32_t onnx_type_of(ElementType type) {
    for (const auto& [onnx_type, element] : kTypes)
        if (element == type) return onnx_type;
    return TensorProto::UNDEFINED;
}

ElementType element_type_of(int32_t onnx_type, const std::string& where) {
    for (const auto& [known, element] : kTypes)
        if (known == onnx_type) return element;
    throw onnx::UnsupportedError(where + ": element type " + onnx_type_name(onnx_type) +
                                 " is not supported by Mosaic (numeric and boolean types only)");
}

TensorData tensor_data(const TensorProto& t, const std::string& base_dir, const std::string& where) {
    TensorData out;
    out.type = element_type_of(t.data_type(), where);
    for (int64_t d : t.dims()) {
        if (d < 0) fail(where, "has a negative dimension " + std::to_string(d));
        out.shape.push_back(d);
    }
    int64_t bytes = 0;
    if (!checked_byte_size(out.shape, out.type, bytes)) fail(where, "shape " + to_string(out.shape) + " is too large");
    if (t.has_segment()) throw onnx::UnsupportedError(where + ": segmented tensors are not supported");

    // Raw data (how exporters write weights) is copied once, straight from the proto.
    const bool raw = t.data_location() != TensorProto::EXTERNAL && t.has_raw_data();
    std::vector<uint8_t> values;
    if (t.data_location() == TensorProto::EXTERNAL) values = external_values(t, base_dir, where);
    else if (!raw) values = typed_values(t, out.type, where);
    const size_t held = raw ? t.raw_data().size() : values.size();

    if (static_cast<int64_t>(held) != bytes)
        fail(where, "holds " + std::to_string(held) + " bytes of data but " + to_string(out.type) + " " +
                        to_string(out.shape) + " needs " + std::to_string(bytes) +
                        "; the model is corrupt or was written by a broken exporter");
    out.data = raw ? Buffer::copy_of(t.raw_data().data(), held) : Buffer::copy_of(values.data(), values.size());
    return out;
}

}  // namespace mosaic::onnx_import
