// --config FILE.json: compile properties in the format of OpenVINO benchmark_app's -load_config,
// so existing files carry over. Either flat, for the device being compiled for:
//   {"PERF_COUNT": true, "PERFORMANCE_HINT": "LATENCY"}
// or per device:
//   {"REFERENCE": {"PERF_COUNT": true}, "ACCEL": {"NUM_STREAMS": 2}}
// A section for the compiled device itself (the whole device string, or its first name, e.g.
// "HETERO" for "HETERO:ACCEL,REFERENCE") is merged into the top level. Sections for other devices
// go to DEVICE_PROPERTIES when the device runs others (a "NAME:A,B" string, or
// MULTI_DEVICE_PRIORITIES in the file), which is how HETERO passes properties to its sub-devices;
// for a plain device they are ignored with a warning.
#pragma once

#include <mosaic/properties.hpp>

#include <string>

namespace mosaic::cli {

AnyMap load_config(const std::string& path, const std::string& device);
// The same, from JSON text; `source` names it in errors.
AnyMap parse_config(const std::string& text, const std::string& device, const std::string& source);

}  // namespace mosaic::cli
