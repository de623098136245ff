// OpenCL's C++ bindings (Khronos' opencl.hpp) as the plugin uses them: OpenCL 1.2 as the target,
// so every vendor's driver works, and errors as exceptions (cl::Error), which the plugin turns into
// statuses that name the call, the device and the status (cl_status_name, cl_status.cpp).
#pragma once

#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>

#include <string>

namespace mosaic::gpu_plugin {

// "CL_OUT_OF_RESOURCES (-5)" for an OpenCL status code.
std::string cl_status_name(int code);

}  // namespace mosaic::gpu_plugin
