// Suites that split over two GPU instances (device_memory, genai) link this: where POCL_DEVICES
// is not set, PoCL is asked for two CPU devices (one OpenCL context holds both, as two GPUs of one
// platform would be). Set before main, so before the GPU plugin first asks the ICD loader for platforms. PoCL 3 (Debian 12) names the
// device "pthread"; PoCL 4 and later call it "cpu": set POCL_DEVICES="cpu cpu" there. A machine with
// two OpenCL GPUs needs nothing (PoCL is then not what the GPU plugin uses).
#include <cstdlib>

namespace {

const bool two_pocl_devices = [] {
    setenv("POCL_DEVICES", "pthread pthread", /*overwrite=*/0);
    return true;
}();

}  // namespace
