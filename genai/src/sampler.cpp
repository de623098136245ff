#include "sampler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace mosaic::genai {

Sampler::Sampler(const GenerationConfig& config) : config_(config), random_(config.rng_seed) {}

void Sampler::apply_penalties(std::vector<float>& logits, const std::vector<int64_t>& context,
                              const std::vector<int64_t>& generated) const {
    const auto in_vocab = [&](int64_t id) { return id >= 0 && static_cast<size_t>(id) < logits.size(); };
    if (config_.repetition_penalty != 1.0f) {
        // Hugging Face's RepetitionPenaltyLogitsProcessor: once per distinct token of the sequence,
        // a positive logit divided, a negative one multiplied, both towards less likely.
        std::vector<bool> seen(logits.size(), false);
        for (int64_t id : context) {
            if (!in_vocab(id) || seen[id]) continue;
            seen[id] = true;
            float& l = logits[id];
            l = l < 0 ? l * config_.repetition_penalty : l / config_.repetition_penalty;
        }
    }
    if (config_.presence_penalty != 0.0f || config_.frequency_penalty != 0.0f) {
        std::unordered_map<int64_t, size_t> counts;
        for (int64_t id : generated)
            if (in_vocab(id)) ++counts[id];
        for (const auto& [id, n] : counts)
            logits[id] -= config_.presence_penalty + config_.frequency_penalty * static_cast<float>(n);
    }
    if (generated.size() < config_.min_new_tokens) {
        // Not yet: the ids that would end the generation cannot be chosen.
        for (int64_t id : config_.stop_token_ids)
            if (in_vocab(id)) logits[id] = -std::numeric_limits<float>::infinity();
    }
}

int64_t Sampler::draw(const std::vector<float>& logits) {
    // Candidates by logit, largest first (stable: equal logits keep the lower id first, as greedy does).
    std::vector<int64_t> order(logits.size());
    std::iota(order.begin(), order.end(), 0);
    size_t keep = order.size();
    if (config_.top_k > 0 && config_.top_k < keep) {
        keep = config_.top_k;
        std::partial_sort(order.begin(), order.begin() + keep, order.end(),
                          [&](int64_t a, int64_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); });
    } else {
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
    }
    order.resize(keep);
    // Softmax of the temperature-scaled logits (order[0] holds the largest, for stability).
    const float top = logits[order[0]] / config_.temperature;
    std::vector<double> p(keep);
    double sum = 0;
    for (size_t i = 0; i < keep; ++i) sum += p[i] = std::exp(static_cast<double>(logits[order[i]] / config_.temperature - top));
    for (double& x : p) x /= sum;
    if (config_.top_p < 1.0f) {
        // The smallest prefix whose probability reaches top_p (at least one token).
        double mass = 0;
        size_t n = 0;
        while (n < keep && mass < config_.top_p) mass += p[n++];
        p.resize(std::max<size_t>(n, 1));
    }
    std::discrete_distribution<size_t> pick(p.begin(), p.end());
    return order[pick(random_)];
}

int64_t Sampler::next(std::vector<float>& logits, const std::vector<int64_t>& context,
                      const std::vector<int64_t>& generated) {
    apply_penalties(logits, context, generated);
    if (!config_.do_sample)
        return static_cast<int64_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    return draw(logits);
}

}  // namespace mosaic::genai
