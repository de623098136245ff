// The text of every OpenCL C kernel of the plugin (kernels/*.cl), built as one program per device.
#pragma once

namespace mosaic::gpu_plugin {

const char* kernel_sources();

}  // namespace mosaic::gpu_plugin
