// Integers packed below a byte, as models store compressed weights: OpenVINO IR's u4, i4 and nf4
// constants (optimum-intel / NNCF `--weight-format int4`, `nf4`) and the 2-, 4- and 8-bit codes of
// ONNX Runtime's MatMulNBits. Both pack low bits first: element 2i is the low nibble of byte i.
//
// Mosaic's graph has no sub-byte type, so the readers unpack them into a byte per element (u8, i8;
// nf4 into the f32 values its codes stand for) when the model is read. A device that keeps weights
// compressed (the CPU's compressed-weight MatMul) packs the codes again in its own layout.
#pragma once

#include <mosaic/element_type.hpp>
#include <mosaic/model.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

namespace mosaic::readers {

struct PackedType {
    const char* name;   // "u4", "i4", "nf4"
    int bits;           // per element
    ElementType unpacked;  // what each element becomes: u8, i8, f32
};

// The packed type an IR element_type or port precision names ("u4", "U4", "i4", "nf4", ...).
std::optional<PackedType> packed_type_from_string(std::string_view name);

// The bytes `count` elements packed `bits` to an element take.
inline uint64_t packed_bytes(uint64_t count, int bits) { return (count * static_cast<uint64_t>(bits) + 7) / 8; }

// Element i of a packed array of unsigned `bits`-bit codes (bits 1, 2, 4 or 8), low bits first.
inline uint8_t packed_code(const uint8_t* bytes, uint64_t i, int bits) {
    const int per_byte = 8 / bits;
    const unsigned shift = static_cast<unsigned>(i % static_cast<uint64_t>(per_byte)) * static_cast<unsigned>(bits);
    return static_cast<uint8_t>((bytes[i / static_cast<uint64_t>(per_byte)] >> shift) & ((1u << bits) - 1u));
}

// `count` elements of `type` unpacked from `bytes` (packed_bytes(count, type.bits) of them).
std::shared_ptr<const Buffer> unpack(const PackedType& type, const uint8_t* bytes, uint64_t count);

}  // namespace mosaic::readers
