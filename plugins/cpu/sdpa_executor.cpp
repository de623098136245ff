#include "sdpa_executor.hpp"

#include "graph_queries.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mosaic::cpu_plugin {

namespace {

constexpr size_t kQuery = 0, kKey = 1, kValue = 2, kMask = 3, kScale = 4;

Shape batch_of(const Shape& s) { return Shape(s.begin(), s.end() - 2); }

// For each index of `out` (the output's batch axes), the index of `in`'s matrix it reads, `in`
// broadcast numpy-style; false when it does not broadcast.
bool matrix_indices(const Shape& in, const Shape& out, std::vector<int64_t>& indices) {
    if (in.size() > out.size()) return false;
    const size_t lead = out.size() - in.size();
    for (size_t d = 0; d < in.size(); ++d)
        if (in[d] != 1 && in[d] != out[lead + d]) return false;
    indices.assign(static_cast<size_t>(shape_size(out)), 0);
    for (size_t o = 0; o < indices.size(); ++o) {
        int64_t rest = static_cast<int64_t>(o), index = 0, stride = 1;
        for (size_t d = out.size(); d-- > lead;) {
            const int64_t i = rest % out[d];
            rest /= out[d];
            const int64_t dim = in[d - lead];
            if (dim != 1) index += i * stride;
            stride *= dim;
        }
        indices[o] = index;
    }
    return true;
}

bool runnable(const Value& v) {
    return v.type == ElementType::f32 && v.shape.size() >= 2 &&
           std::all_of(v.shape.begin(), v.shape.end(), [](int64_t d) { return d > 0; });
}

// What one query row reads of the mask: the bias of column s is at row[s * stride].
struct MaskRow {
    const void* row = nullptr;
    int64_t stride = 0;
    bool boolean = false;
};

// One query row: scores into `scores` (S floats), a softmax with the row maximum subtracted, then
// the weighted sum of the value rows. Compiled for AVX-512 and AVX2 beside the baseline, chosen
// when the library loads: the dot products and the sums over value rows vectorise.
__attribute__((target_clones("avx512f", "avx2", "default"))) void attend_row(
    const float* q, const float* k, const float* v, float* out, float* scores, int64_t S, int64_t E, int64_t Ev,
    float scale, const MaskRow& mask, int64_t last_key) {
    constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
    float max = kMinusInf;
    for (int64_t s = 0; s < S; ++s) {
        float bias = 0;
        if (mask.row) {
            if (mask.boolean) bias = static_cast<const uint8_t*>(mask.row)[s * mask.stride] ? 0.0f : kMinusInf;
            else bias = static_cast<const float*>(mask.row)[s * mask.stride];
        }
        if (s > last_key || bias == kMinusInf) {
            scores[s] = kMinusInf;
            continue;
        }
        const float* ks = k + s * E;
        float dot = 0;
#pragma omp simd reduction(+ : dot)
        for (int64_t e = 0; e < E; ++e) dot += q[e] * ks[e];
        scores[s] = dot * scale + bias;
        max = std::max(max, scores[s]);
    }
    if (max == kMinusInf) {  // nothing attended to: NaN, as the reference
        std::fill(out, out + Ev, std::numeric_limits<float>::quiet_NaN());
        return;
    }
    float sum = 0;
    for (int64_t s = 0; s < S; ++s) sum += (scores[s] = std::exp(scores[s] - max));
    std::fill(out, out + Ev, 0.0f);
    for (int64_t s = 0; s < S; ++s) {
        const float w = scores[s];
        if (w == 0) continue;
        const float* vs = v + s * Ev;
#pragma omp simd
        for (int64_t e = 0; e < Ev; ++e) out[e] += w * vs[e];
    }
    const float inverse = 1.0f / sum;
#pragma omp simd
    for (int64_t e = 0; e < Ev; ++e) out[e] *= inverse;
}

}  // namespace

SdpaExecutor::SdpaExecutor(std::string name, std::vector<ValueId> inputs, ValueId output)
    : Executor(std::move(name), "ScaledDotProductAttention", std::move(inputs), {output}) {}

std::unique_ptr<Executor> SdpaExecutor::create(const BuildContext& ctx, size_t node) {
    const sdk::GraphView& g = ctx.graph;
    const size_t inputs = g.input_count(node);
    if (g.type(node) != "ScaledDotProductAttention" || inputs < 3 || inputs > 5 || g.output_count(node) != 1)
        return nullptr;
    const ValueTable& values = ctx.values;
    const Value& q = values[values.input(node, kQuery)];
    const Value& k = values[values.input(node, kKey)];
    const Value& v = values[values.input(node, kValue)];
    const ValueId out_id = values.output(node, 0);
    const Value& out = values[out_id];
    if (!runnable(q) || !runnable(k) || !runnable(v) || !runnable(out)) return nullptr;
    const int64_t L = q.shape[q.shape.size() - 2], E = q.shape.back();
    const int64_t S = k.shape[k.shape.size() - 2], Ev = v.shape.back();
    if (k.shape.back() != E || v.shape[v.shape.size() - 2] != S) return nullptr;
    const Shape out_batch = batch_of(out.shape);
    if (out.shape[out.shape.size() - 2] != L || out.shape.back() != Ev) return nullptr;

    // As the reference: with causal set the mask input is not read.
    const bool causal = g.attributes(node).get_bool("causal", false);
    const bool masked = !causal && inputs > kMask;
    float scale = 1.0f / std::sqrt(static_cast<float>(E));
    bool runtime_scale = false;
    std::vector<ValueId> ids{values.input(node, kQuery), values.input(node, kKey), values.input(node, kValue)};
    if (masked) ids.push_back(values.input(node, kMask));
    if (inputs > kScale) {
        const ValueId scale_id = values.input(node, kScale);
        const Value& given = values[scale_id];
        if (given.type != ElementType::f32 || shape_size(given.shape) != 1) return nullptr;
        runtime_scale = !scalar_constant(values, scale_id, scale);
        if (runtime_scale) ids.push_back(scale_id);
    }

    std::unique_ptr<SdpaExecutor> e(new SdpaExecutor(g.node_name(node), ids, out_id));
    if (!matrix_indices(batch_of(q.shape), out_batch, e->q_matrix_) ||
        !matrix_indices(batch_of(k.shape), out_batch, e->k_matrix_) ||
        !matrix_indices(batch_of(v.shape), out_batch, e->v_matrix_))
        return nullptr;
    e->L_ = L, e->S_ = S, e->E_ = E, e->Ev_ = Ev;
    // A row of scores per thread of the stream (the compiled model builds under its thread count).
    e->threads_ = std::max(1, omp_get_max_threads());
    e->scores_offset_ = e->scratch_.reserve(static_cast<size_t>(e->threads_) * static_cast<size_t>(S) * sizeof(float));
    e->causal_ = causal;
    e->scale_ = scale;
    if (runtime_scale) e->scale_value_ = ids.back();
    if (masked) {
        const Value& mask = values[ids[kMask]];
        if (mask.type != ElementType::boolean && mask.type != ElementType::f32) return nullptr;
        // A scalar mask acts as [1, 1], a vector as one row.
        Shape matrix = mask.shape;
        matrix.insert(matrix.begin(), matrix.size() < 2 ? 2 - matrix.size() : 0, 1);
        const int64_t rows = matrix[matrix.size() - 2], cols = matrix.back();
        if ((rows != 1 && rows != L) || (cols != 1 && cols != S)) return nullptr;
        if (!matrix_indices(batch_of(matrix), out_batch, e->mask_matrix_)) return nullptr;
        e->mask_ = mask.type == ElementType::boolean ? Mask::boolean : Mask::additive;
        e->mask_matrix_size_ = rows * cols;
        e->mask_row_stride_ = rows == 1 ? 0 : cols;
        e->mask_col_stride_ = cols == 1 ? 0 : 1;
        e->mask_value_ = ids[kMask];
    }
    return e;
}

void SdpaExecutor::execute(const ExecContext& ctx) const {
    const auto* q = static_cast<const float*>(ctx[inputs()[kQuery]]);
    const auto* k = static_cast<const float*>(ctx[inputs()[kKey]]);
    const auto* v = static_cast<const float*>(ctx[inputs()[kValue]]);
    auto* out = static_cast<float*>(ctx[outputs()[0]]);
    const void* mask = mask_value_ == kNoValue ? nullptr : ctx[mask_value_];
    const size_t mask_bytes = mask_ == Mask::boolean ? 1 : sizeof(float);
    const float scale = scale_value_ == kNoValue ? scale_ : *static_cast<const float*>(ctx[scale_value_]);
    const int64_t rows = static_cast<int64_t>(q_matrix_.size()) * L_;
    float* const scores_of_threads = reinterpret_cast<float*>(ctx.scratch + scores_offset_);
#pragma omp parallel num_threads(threads_)
    {
        float* const scores = scores_of_threads + static_cast<size_t>(omp_get_thread_num()) * static_cast<size_t>(S_);
#pragma omp for schedule(static)
        for (int64_t r = 0; r < rows; ++r) {
            const auto b = static_cast<size_t>(r / L_);
            const int64_t l = r % L_;
            MaskRow row;
            if (mask) {
                row.row = static_cast<const uint8_t*>(mask) +
                          static_cast<size_t>(mask_matrix_[b] * mask_matrix_size_ + l * mask_row_stride_) * mask_bytes;
                row.stride = mask_col_stride_;
                row.boolean = mask_ == Mask::boolean;
            }
            attend_row(q + (q_matrix_[b] * L_ + l) * E_, k + k_matrix_[b] * S_ * E_, v + v_matrix_[b] * S_ * Ev_,
                       out + r * Ev_, scores, S_, E_, Ev_, scale, row, causal_ ? l : S_ - 1);
        }
    }
}

}  // namespace mosaic::cpu_plugin
