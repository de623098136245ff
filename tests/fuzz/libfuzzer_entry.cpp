// libFuzzer's entry point for one target, chosen at build time: -DMOSAIC_FUZZ_ENTRY=ir_reader.
#include "fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    mosaic::fuzz::MOSAIC_FUZZ_ENTRY(data, size);
    return 0;
}
