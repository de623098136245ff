#include "gemm/clblast_tuning.hpp"

#include <clblast.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace mosaic::gpu_plugin {

namespace {

struct Tuning {
    const char* name_prefix;  // CL_DEVICE_NAME starts with it
    const char* measured_on;  // the device and driver the tuner ran on
    std::unordered_map<std::string, size_t> xgemm;         // CLBlast's "Xgemm" kernel, single precision
    std::unordered_map<std::string, size_t> gemm_routine;  // CLBlast's "GemmRoutine": which kernel runs when
};

// PoCL names its CPU device after LLVM's CPU target ("pthread-skylake-avx512-<cpu>"), so an entry
// covers every CPU of that instruction set.
//
// Every entry must give right results at any size, not only at the size it was tuned at: CLBlast
// 1.5.3's tuner picked GEMMK=1 kernels (KREG 16) here, 79-95 GFLOP/s at 1024^3 but wrong whenever K
// is not a multiple of KREG (benchmarks/gemm's check: 1024x1024x1000 FAILED). The entry below is the
// standard kernel (GEMMK=0) with tiles sized for 16-float vectors, checked at 1024^3, 1024x1024x1000,
// 1030x1024x1027, 1x10x32, 3x7x5, 17x1000x2048, 64x3136x576 and 256x49x4608.
const std::vector<Tuning>& table() {
    static const std::vector<Tuning> entries = {
        {"pthread-skylake-avx512", "PoCL 3.1 pthread-skylake-avx512, AMD EPYC, 2 cores, CLBlast 1.5.3",
         {{"GEMMK", 0}, {"KREG", 1}, {"KWG", 16}, {"KWI", 2}, {"MDIMA", 8}, {"MDIMC", 8}, {"MWG", 64}, {"NDIMB", 8},
          {"NDIMC", 8}, {"NWG", 64}, {"SA", 0}, {"SB", 0}, {"STRM", 1}, {"STRN", 0}, {"VWM", 4}, {"VWN", 4}},
         // Below XGEMM_MIN_INDIRECT_SIZE CLBlast runs its direct kernel, untuned; the tiled one is
         // faster down to small GEMMs (64x3136x576, a ResNet-50 convolution: 20 -> 61 GFLOP/s).
         {{"XGEMM_MIN_INDIRECT_SIZE", 64}}},
    };
    return entries;
}

}  // namespace

std::string apply_gemm_tuning(cl_device_id device, const std::string& name) {
    for (const Tuning& t : table()) {
        if (name.rfind(t.name_prefix, 0) != 0) continue;
        clblast::StatusCode status = clblast::OverrideParameters(device, "Xgemm", clblast::Precision::kSingle, t.xgemm);
        if (status == clblast::StatusCode::kSuccess && !t.gemm_routine.empty())
            status = clblast::OverrideParameters(device, "GemmRoutine", clblast::Precision::kSingle, t.gemm_routine);
        if (status != clblast::StatusCode::kSuccess)
            return "CLBlast's own parameters (it refused the table's for " + std::string(t.name_prefix) + ": status " +
                   std::to_string(static_cast<int>(status)) + ")";
        return std::string("tuned for ") + t.name_prefix + " (" + t.measured_on + ")";
    }
    return "CLBlast's own parameters";
}

}  // namespace mosaic::gpu_plugin
