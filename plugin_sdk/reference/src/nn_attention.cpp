// Reference kernel of ScaledDotProductAttention-13, one query row at a time in double precision:
// the scores q.k * scale + bias, a softmax with the row maximum subtracted, then the weighted sum
// of the value rows. Batch axes broadcast numpy-style across query, key, value and the mask.
// A row whose scores are all -inf (every key masked) comes out NaN, as in the specification's
// pseudo-code and OpenVINO's CPU plugin: nothing was attended to, so no value is right.
#include "broadcast.hpp"
#include "nn_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace mosaic::reference::nn {

namespace {

constexpr size_t kQuery = 0, kKey = 1, kValue = 2, kMask = 3, kScale = 4;

Shape batch_of(const Shape& s) { return Shape(s.begin(), s.end() - 2); }

// A scalar mask acts as [1, 1].
Shape matrix_shape(const Shape& mask) { return mask.empty() ? Shape{1, 1} : mask; }

// The additive bias of score (l, s): a float mask's value, or 0 / -inf for a boolean one. Axes of
// size 1 repeat.
class MaskBias {
public:
    MaskBias(const ConstTensorView& mask, const Shape& out_batch, int64_t L, int64_t S)
        : mask_(mask), shape_(matrix_shape(mask.shape)), batch_(batch_of(shape_), out_batch) {
        const int64_t ml = shape_[shape_.size() - 2], ms = shape_.back();
        if ((ml != 1 && ml != L) || (ms != 1 && ms != S))
            throw std::runtime_error("ScaledDotProductAttention: attention_mask " + to_string(mask.shape) +
                                     " does not broadcast to [..., " + std::to_string(L) + ", " +
                                     std::to_string(S) + "]");
        l_stride_ = ml == 1 ? 0 : ms;
        s_stride_ = ms == 1 ? 0 : 1;
        matrix_ = ml * ms;
    }

    template <typename T>
    double at(int64_t batch, int64_t l, int64_t s) const {
        const int64_t i = batch_(batch) * matrix_ + l * l_stride_ + s * s_stride_;
        if (mask_.type == ElementType::boolean)
            return mask_.as<uint8_t>()[i] != 0 ? 0.0 : -std::numeric_limits<double>::infinity();
        return static_cast<double>(mask_.as<T>()[i]);
    }

private:
    ConstTensorView mask_;
    Shape shape_;
    BroadcastIndex batch_;
    int64_t l_stride_ = 0, s_stride_ = 0, matrix_ = 0;
};

template <typename T>
void sdpa(const KernelArgs& args) {
    const Shape& qs = args.inputs[kQuery].shape;
    const Shape& ks = args.inputs[kKey].shape;
    const Shape& vs = args.inputs[kValue].shape;
    const int64_t L = qs[qs.size() - 2], E = qs.back(), S = ks[ks.size() - 2], Ev = vs.back();
    if (ks.back() != E || vs[vs.size() - 2] != S)
        throw std::runtime_error("ScaledDotProductAttention: query " + to_string(qs) + ", key " + to_string(ks) +
                                 " and value " + to_string(vs) + " disagree on E or S");
    const Shape& out_shape = args.outputs[0].shape;
    const Shape out_batch = batch_of(out_shape);
    const BroadcastIndex q_batch(batch_of(qs), out_batch), k_batch(batch_of(ks), out_batch),
        v_batch(batch_of(vs), out_batch);

    const bool causal = args.attrs.get_bool("causal", false);
    std::optional<MaskBias> mask;
    if (!causal && args.inputs.size() > kMask) {
        const ElementType mt = args.inputs[kMask].type;
        if (mt != ElementType::boolean && mt != args.inputs[kQuery].type)
            throw std::runtime_error(std::string("ScaledDotProductAttention: attention_mask must be boolean or ") +
                                     to_string(args.inputs[kQuery].type) + " like query, got " + to_string(mt));
        mask.emplace(args.inputs[kMask], out_batch, L, S);
    }
    const double scale = args.inputs.size() > kScale ? read_floats(args.inputs[kScale]).at(0)
                                                     : 1.0 / std::sqrt(static_cast<double>(E));

    const T* q = args.inputs[kQuery].as<T>();
    const T* k = args.inputs[kKey].as<T>();
    const T* v = args.inputs[kValue].as<T>();
    T* out = args.outputs[0].as<T>();
    std::vector<double> scores(static_cast<size_t>(S));
    std::vector<double> row(static_cast<size_t>(Ev));
    const int64_t batches = shape_size(out_batch);
    for (int64_t b = 0; b < batches; ++b) {
        const T* kb = k + k_batch(b) * S * E;
        const T* vb = v + v_batch(b) * S * Ev;
        for (int64_t l = 0; l < L; ++l) {
            const T* ql = q + (q_batch(b) * L + l) * E;
            double max = -std::numeric_limits<double>::infinity();
            for (int64_t s = 0; s < S; ++s) {
                double dot = 0;
                for (int64_t e = 0; e < E; ++e) dot += static_cast<double>(ql[e]) * static_cast<double>(kb[s * E + e]);
                double score = dot * scale;
                if (causal && s > l) score = -std::numeric_limits<double>::infinity();
                else if (mask) score += mask->template at<T>(b, l, s);
                scores[static_cast<size_t>(s)] = score;
                max = std::max(max, score);
            }
            double sum = 0;
            for (double& x : scores) sum += (x = std::exp(x - max));
            std::fill(row.begin(), row.end(), 0.0);
            for (int64_t s = 0; s < S; ++s) {
                const double w = scores[static_cast<size_t>(s)] / sum;
                for (int64_t e = 0; e < Ev; ++e) row[static_cast<size_t>(e)] += w * static_cast<double>(vb[s * Ev + e]);
            }
            T* o = out + (b * L + l) * Ev;
            for (int64_t e = 0; e < Ev; ++e) o[e] = static_cast<T>(row[static_cast<size_t>(e)]);
        }
    }
}

void sdpa_kernel(const KernelArgs& args) {
    dispatch_floating(args, args.inputs[kQuery].type, [&](auto tag) { sdpa<decltype(tag)>(args); });
}

}  // namespace

void register_attention_kernels(KernelRegistry& r) {
    r.add("ScaledDotProductAttention", {"opset13"}, sdpa_kernel);
}

}  // namespace mosaic::reference::nn
