// CLBlast's GEMM kernel parameters for OpenCL devices its own tuning database does not know. Such a
// device runs CLBlast's generic defaults, which on PoCL's CPU device reach half of what fitted
// parameters do (benchmarks/gemm at 1024^3 on 2 AVX-512 cores: 33 -> 61 GFLOP/s; 64x3136x576:
// 20 -> 61). The table holds parameters per device, matched by the start of the device's name and
// handed to CLBlast once per device, before its first GEMM; benchmarks/gemm/run.sh --tune runs
// CLBlast's tuner for a start, and its check is what an entry must pass at odd sizes too.
#pragma once

#include <CL/cl.h>

#include <string>

namespace mosaic::gpu_plugin {

// Gives CLBlast the table's Xgemm parameters for `device` (named `name`, its CL_DEVICE_NAME) if an
// entry matches. Returns what the device's GEMMs run with: "tuned for <entry> (...)" or "CLBlast's
// own parameters". Depends on OpenCL and CLBlast alone, so benchmarks/gemm builds it too.
std::string apply_gemm_tuning(cl_device_id device, const std::string& name);

}  // namespace mosaic::gpu_plugin
