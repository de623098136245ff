#include "clblast_tuning.hpp"

#include <clblast.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace mosaic::gpu_plugin {

namespace {

struct Tuning {
    const char* name_prefix;  // CL_DEVICE_NAME starts with it
    const char* measured_on;  // the device and driver the tuner ran on
    std::unordered_map<std::string, size_t> xgemm;  // single precision
};

// PoCL names its CPU device after LLVM's CPU target ("pthread-skylake-avx512-<cpu>"), so an entry
// covers every CPU of that instruction set.
const std::vector<Tuning>& table() {
    static const std::vector<Tuning> entries = {
        {"pthread-skylake-avx512", "PoCL 3.1 pthread-skylake-avx512, AMD EPYC, 2 cores (CLBlast 1.5.3 TuneXgemm)",
         {{"GEMMK", 1}, {"KREG", 16}, {"KWG", 1}, {"KWI", 1}, {"MDIMA", 8}, {"MDIMC", 8}, {"MWG", 128}, {"NDIMB", 4},
          {"NDIMC", 4}, {"NWG", 16}, {"SA", 0}, {"SB", 0}, {"STRM", 0}, {"STRN", 0}, {"VWM", 8}, {"VWN", 2}}},
    };
    return entries;
}

}  // namespace

std::string apply_gemm_tuning(cl_device_id device, const std::string& name) {
    for (const Tuning& t : table()) {
        if (name.rfind(t.name_prefix, 0) != 0) continue;
        const clblast::StatusCode status = clblast::OverrideParameters(device, "Xgemm", clblast::Precision::kSingle, t.xgemm);
        if (status != clblast::StatusCode::kSuccess)
            return "CLBlast's own parameters (it refused the table's for " + std::string(t.name_prefix) + ": status " +
                   std::to_string(static_cast<int>(status)) + ")";
        return std::string("tuned for ") + t.name_prefix + " (" + t.measured_on + ")";
    }
    return "CLBlast's own parameters";
}

}  // namespace mosaic::gpu_plugin
