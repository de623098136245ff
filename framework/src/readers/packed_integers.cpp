#include "readers/packed_integers.hpp"

#include <vector>

namespace mosaic::readers {

namespace {

// NF4's sixteen values (QLoRA's normal-float quantiles, as OpenVINO's Convert from nf4 gives them).
constexpr float kNf4Values[16] = {
    -1.0f, -0.6961928009986877f, -0.5250730514526367f, -0.39491748809814453f, -0.28444138169288635f,
    -0.18477343022823334f, -0.09105003625154495f, 0.0f, 0.07958029955625534f, 0.16093020141124725f,
    0.24611230194568634f, 0.33791524171829224f, 0.44070982933044434f, 0.5626170039176941f,
    0.7229568362236023f, 1.0f};

constexpr PackedType kTypes[] = {
    {"u4", 4, ElementType::u8}, {"U4", 4, ElementType::u8},   {"i4", 4, ElementType::i8},
    {"I4", 4, ElementType::i8}, {"nf4", 4, ElementType::f32}, {"NF4", 4, ElementType::f32},
};

template <class T, class Map>
std::shared_ptr<const Buffer> unpacked(const uint8_t* bytes, uint64_t count, int bits, Map map) {
    auto values = std::make_shared<std::vector<T>>(count);
    for (uint64_t i = 0; i < count; ++i) (*values)[i] = map(packed_code(bytes, i, bits));
    const void* data = values->data();
    return Buffer::view(data, count * sizeof(T), std::move(values));
}

}  // namespace

std::optional<PackedType> packed_type_from_string(std::string_view name) {
    for (const PackedType& t : kTypes)
        if (name == t.name) return t;
    return std::nullopt;
}

std::shared_ptr<const Buffer> unpack(const PackedType& type, const uint8_t* bytes, uint64_t count) {
    const int bits = type.bits;
    switch (type.unpacked) {
        case ElementType::u8: return unpacked<uint8_t>(bytes, count, bits, [](uint8_t c) { return c; });
        case ElementType::i8:  // two's complement in `bits` bits, sign-extended
            return unpacked<int8_t>(bytes, count, bits, [bits](uint8_t c) {
                return static_cast<int8_t>(c >= (1u << (bits - 1)) ? static_cast<int>(c) - (1 << bits) : c);
            });
        default: return unpacked<float>(bytes, count, bits, [](uint8_t c) { return kNf4Values[c]; });
    }
}

}  // namespace mosaic::readers
