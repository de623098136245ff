// The fuzz targets: one function per target, taking the bytes of one input.
//
// libfuzzer_entry.cpp makes a libFuzzer binary of each (clang, MOSAIC_FUZZ=ON); fuzz_inputs.cpp
// runs every target on its seeds and kept regression inputs in every build, so what the fuzzers
// found stays fixed without clang.
//
// A target returns normally when the code under test refuses an input with the errors it documents
// (std::runtime_error and its subclasses: ModelError, UsageError, ...). Anything else is a finding:
// a crash, a sanitizer report, a broken invariant (report_finding), or an exception of any other
// kind (nlohmann's json exceptions, std::logic_error), which escapes the target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

// X(name, inputs) for every target: its function is mosaic::fuzz::name, and its seeds and regression
// inputs are in tests/fuzz/seeds/<inputs> and tests/fuzz/regressions/<inputs> (reference_plugin
// takes ONNX models, as onnx_reader does). scripts/fuzz.sh lists the same pairs.
#define MOSAIC_FUZZ_TARGETS(X)            \
    X(ir_reader, ir_reader)               \
    X(onnx_reader, onnx_reader)           \
    X(registry, registry)                 \
    X(device_properties, device_properties) \
    X(cli_shape, cli_shape)               \
    X(cli_config, cli_config)             \
    X(reference_plugin, onnx_reader)      \
    X(tokenizer, tokenizer)               \
    X(chat_template, chat_template)

namespace mosaic::fuzz {

#define MOSAIC_FUZZ_DECLARE(name, inputs) void name(const uint8_t* data, size_t size);
MOSAIC_FUZZ_TARGETS(MOSAIC_FUZZ_DECLARE)
#undef MOSAIC_FUZZ_DECLARE

// A broken invariant that no exception reports: prints what and aborts, which libFuzzer records as
// a crash with the input that caused it.
[[noreturn]] void report_finding(const std::string& target, const std::string& what);

}  // namespace mosaic::fuzz
