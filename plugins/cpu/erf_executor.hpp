// Erf on f32 as one vectorised pass. oneDNN has erf only inside its erf Gelu, and the reference
// kernel computes std::erf element by element (13 ns an element here): a Gelu that
// decomposed_activation.hpp cannot take as one (NNCF quantizes the 1 + erf term of a quantized
// BERT's Gelu, so a FakeQuantize sits inside the pattern) left Erf 0.7 ms of every layer of a
// MiniLM at [1, 128, 1536]. Within 3e-7 of erf (absolute, and 6e-7 relative), at about 0.5 ns an
// element on AVX-512.
#pragma once

#include "executor.hpp"

#include <memory>

namespace mosaic::cpu_plugin {

class ErfExecutor final : public Executor {
public:
    // Erf `node` of a plain f32 tensor, or nullptr (another type, a blocked layout).
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node);

    void execute(const ExecContext& ctx) const override;
    std::string exec_type() const override { return "erf:vectorised"; }

private:
    using Executor::Executor;
    size_t count_ = 0;
};

// y[i] = erf(x[i]) for i in [0, count), on the threads of the current OpenMP team.
void erf_f32(const float* x, float* y, size_t count);

}  // namespace mosaic::cpu_plugin
