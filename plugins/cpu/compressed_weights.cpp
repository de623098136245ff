#include "compressed_weights.hpp"

#include "constant_cache.hpp"

#include <tuple>

namespace mosaic::cpu_plugin {

namespace {

using sdk::patterns::CompressedWeights;

// What a repacked matrix is made of besides its codes' address: their shape and type, and a hash of
// the scales and zero points (two decompressions of one constant with other parameters are two
// matrices).
struct MatrixKey {
    int64_t rows, columns, group;
    ElementType type;
    uint64_t parameters;
    bool operator==(const MatrixKey& o) const {
        return std::tie(rows, columns, group, type, parameters) == std::tie(o.rows, o.columns, o.group, o.type, o.parameters);
    }
};

uint64_t fnv1a(const std::vector<float>& a, const std::vector<float>& b) {
    uint64_t h = 1469598103934665603ull;
    for (const auto* v : {&a, &b}) {
        const auto* bytes = reinterpret_cast<const uint8_t*>(v->data());
        for (size_t i = 0; i < v->size() * sizeof(float); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
    }
    return h;
}

ConstantCache<MatrixKey, CompressedMatrix>& cache() {
    static ConstantCache<MatrixKey, CompressedMatrix> instance;
    return instance;
}

}  // namespace

std::shared_ptr<const CompressedMatrix> compressed_matrix_of(const BuildContext& ctx, const CompressedWeights& w,
                                                             bool& shared) {
    const std::vector<float> scale = sdk::patterns::group_values(ctx.values, w.scale, w);
    const std::vector<float> zero_point = sdk::patterns::group_values(ctx.values, w.zero_point, w);
    const Value& codes = ctx.values[w.codes];
    const MatrixKey key{w.rows, w.columns, w.group, codes.type, fnv1a(scale, zero_point)};
    std::shared_ptr<const CompressedMatrix> found = cache().find(codes.constant, key);
    shared = bool(found);
    if (!found) {
        std::shared_ptr<const CompressedMatrix> mine =
            compress_matrix(codes.constant, codes.type, w.rows, w.columns, w.group, scale, zero_point);
        found = cache().add(codes.constant, key, mine);
        shared = found != mine;
    }
    return found;
}

}  // namespace mosaic::cpu_plugin
