// benchmark_app's device tuning flags as compile properties:
//   -nstreams -> NUM_STREAMS, -nthreads -> INFERENCE_NUM_THREADS,
//   -infer_precision -> INFERENCE_PRECISION_HINT.
// Each takes one value for every device, or DEVICE:VALUE pairs ("ACCEL:2,REFERENCE:1") as
// benchmark_app does. For a device string that runs others (HETERO:A,B) the values go to the named
// devices through DEVICE_PROPERTIES, which is how HETERO hands properties to its devices; a plain
// device gets them directly. The devices check them when compiling, so a device that has no such
// property, or refuses the value, fails the compile with an error naming the device and the
// property: nothing is dropped silently (benchmark_app skips properties a device lacks).
#pragma once

#include <mosaic/properties.hpp>

#include <string>

namespace mosaic::cli {

struct DeviceFlag {
    const char* flag;  // "-nstreams", for errors
    const char* key;   // "NUM_STREAMS"
    std::string value;  // as given; empty: not given
};

// Adds the given flags to `props` for `device`, on top of what --config set there. Throws
// UsageError for a DEVICE:VALUE pair naming a device the device string does not.
void apply_device_flag(AnyMap& props, const std::string& device, const DeviceFlag& flag);

}  // namespace mosaic::cli
