// The text of every OpenCL C kernel of the plugin (kernels/prelude.txt's pieces, then kernels/*.cl),
// built as one program per device.
#pragma once

namespace mosaic::gpu_plugin {

const char* kernel_sources();

}  // namespace mosaic::gpu_plugin
