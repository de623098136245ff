// A fuzzed ONNX model compiled for the REFERENCE plugin, which receives it through the ABI graph
// view, and run once on zero inputs. MAX_TENSOR_BYTES is 64 KiB: a model declaring huge tensors must
// be refused by the size check, not allocated (which would only find the fuzzer's memory limit); and
// the kernels' edge cases show on small tensors as well as on large ones, while a large one costs a
// run as much as hundreds of small ones (at 64 MiB, one Softmax over 16M floats took most of a long
// run's time, at 159 executions a second; at 1 MiB, TopK sorting 1M int8 did, at about 100 a second).
#include "fuzz_scratch.hpp"
#include "fuzz_targets.hpp"

#include "runtime/memory_guard.hpp"

#include <mosaic/mosaic.hpp>
#include <mosaic/onnx.hpp>

#include <stdexcept>

namespace mosaic::fuzz {

void reference_plugin(const uint8_t* data, size_t size) {
    static Core core;  // the build's registry; one Core, so the plugin is loaded once
    onnx::ReadOptions options;
    options.dynamic_dims_to_one = true;
    try {
        const auto model = onnx::read_onnx(write_scratch("plugin/model.onnx", {reinterpret_cast<const char*>(data), size}),
                                           options);
        CompiledModel compiled = core.compile_model(model, "REFERENCE", {{kMaxTensorBytesKey, uint64_t{1} << 16}});
        InferRequest request = compiled.create_infer_request();
        request.infer();
    } catch (const std::runtime_error&) {
        // refused by the reader, the size check, the plugin or the kernel, saying why
    }
}

}  // namespace mosaic::fuzz
