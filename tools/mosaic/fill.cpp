#include "fill.hpp"

#include <cstring>

namespace mosaic::cli {

namespace {

class SplitMix64 {
public:
    explicit SplitMix64(uint64_t seed) : state_(seed) {}
    uint64_t next() {
        uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    float next_float() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }
    double next_double() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

private:
    uint64_t state_;
};

template <typename T, typename Gen>
void fill(Tensor& t, Gen gen) {
    T* p = t.data<T>();
    for (size_t i = 0; i < t.get_size(); ++i) p[i] = gen();
}

}  // namespace

Tensor deterministic_tensor(ElementType type, const Shape& shape, uint64_t seed) {
    Tensor t(type, shape);
    SplitMix64 rng(seed);
    auto small_int = [&rng] { return rng.next() % 10; };
    switch (type) {
        case ElementType::f32: fill<float>(t, [&] { return rng.next_float(); }); break;
        case ElementType::f64: fill<double>(t, [&] { return rng.next_double(); }); break;
        case ElementType::f16: fill<uint16_t>(t, [&] { return f32_to_f16(rng.next_float()); }); break;
        case ElementType::bf16: fill<uint16_t>(t, [&] { return f32_to_bf16(rng.next_float()); }); break;
        case ElementType::i8: fill<int8_t>(t, [&] { return static_cast<int8_t>(small_int()); }); break;
        case ElementType::u8: fill<uint8_t>(t, [&] { return static_cast<uint8_t>(small_int()); }); break;
        case ElementType::i16: fill<int16_t>(t, [&] { return static_cast<int16_t>(small_int()); }); break;
        case ElementType::u16: fill<uint16_t>(t, [&] { return static_cast<uint16_t>(small_int()); }); break;
        case ElementType::i32: fill<int32_t>(t, [&] { return static_cast<int32_t>(small_int()); }); break;
        case ElementType::u32: fill<uint32_t>(t, [&] { return static_cast<uint32_t>(small_int()); }); break;
        case ElementType::i64: fill<int64_t>(t, [&] { return static_cast<int64_t>(small_int()); }); break;
        case ElementType::u64: fill<uint64_t>(t, [&] { return static_cast<uint64_t>(small_int()); }); break;
        case ElementType::boolean: fill<uint8_t>(t, [&] { return static_cast<uint8_t>(rng.next() & 1); }); break;
        case ElementType::undefined: break;
    }
    return t;
}

std::string deterministic_fill_description(ElementType type) {
    if (is_floating(type)) return "fixed-seed uniform random values in [0, 1)";
    if (type == ElementType::boolean) return "fixed-seed random 0/1 values";
    return "fixed-seed random integers in [0, 9]";
}

}  // namespace mosaic::cli
