// NumPy .npy files (format versions 1.0, 2.0 and 3.0), read into and written from mosaic::Tensor.
//
// Supported: little-endian (or one-byte) dtypes <f4 <f8 <f2 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8 |b1,
// C order. Anything else (Fortran order, big-endian, structured or object dtypes) is rejected with
// an NpyError that names the file and says how to convert it with numpy. bf16 has no NumPy dtype
// and cannot be written.
#pragma once

#include <mosaic/element_type.hpp>
#include <mosaic/tensor.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace mosaic::npy {

class NpyError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The dtype string NumPy writes for `type` ("<f4"); throws NpyError when there is none (bf16).
std::string dtype_of(ElementType type);
// The element type of a dtype string; undefined when it is not one this reader supports.
ElementType element_type_of(std::string_view dtype);

// Parses a whole .npy file held in memory. `source` names it in error messages.
Tensor parse(std::string_view bytes, const std::string& source = "<memory>");
// The bytes of a .npy file holding `tensor` (version 1.0, or 2.0 when the header needs it).
std::string serialize(const Tensor& tensor);

Tensor read(const std::string& path);
void write(const std::string& path, const Tensor& tensor);

}  // namespace mosaic::npy
