#include "opencl/cl.hpp"

namespace mosaic::gpu_plugin {

std::string cl_status_name(int code) {
    const char* name = nullptr;
    switch (code) {
        case CL_SUCCESS: name = "CL_SUCCESS"; break;
        case CL_DEVICE_NOT_FOUND: name = "CL_DEVICE_NOT_FOUND"; break;
        case CL_DEVICE_NOT_AVAILABLE: name = "CL_DEVICE_NOT_AVAILABLE"; break;
        case CL_COMPILER_NOT_AVAILABLE: name = "CL_COMPILER_NOT_AVAILABLE"; break;
        case CL_MEM_OBJECT_ALLOCATION_FAILURE: name = "CL_MEM_OBJECT_ALLOCATION_FAILURE"; break;
        case CL_OUT_OF_RESOURCES: name = "CL_OUT_OF_RESOURCES"; break;
        case CL_OUT_OF_HOST_MEMORY: name = "CL_OUT_OF_HOST_MEMORY"; break;
        case CL_BUILD_PROGRAM_FAILURE: name = "CL_BUILD_PROGRAM_FAILURE"; break;
        case CL_INVALID_VALUE: name = "CL_INVALID_VALUE"; break;
        case CL_INVALID_PLATFORM: name = "CL_INVALID_PLATFORM"; break;
        case CL_INVALID_DEVICE: name = "CL_INVALID_DEVICE"; break;
        case CL_INVALID_BINARY: name = "CL_INVALID_BINARY"; break;
        case CL_INVALID_BUILD_OPTIONS: name = "CL_INVALID_BUILD_OPTIONS"; break;
        case CL_INVALID_PROGRAM_EXECUTABLE: name = "CL_INVALID_PROGRAM_EXECUTABLE"; break;
        case CL_INVALID_KERNEL_NAME: name = "CL_INVALID_KERNEL_NAME"; break;
        case CL_INVALID_KERNEL_ARGS: name = "CL_INVALID_KERNEL_ARGS"; break;
        case CL_INVALID_ARG_INDEX: name = "CL_INVALID_ARG_INDEX"; break;
        case CL_INVALID_ARG_VALUE: name = "CL_INVALID_ARG_VALUE"; break;
        case CL_INVALID_ARG_SIZE: name = "CL_INVALID_ARG_SIZE"; break;
        case CL_INVALID_WORK_GROUP_SIZE: name = "CL_INVALID_WORK_GROUP_SIZE"; break;
        case CL_INVALID_WORK_ITEM_SIZE: name = "CL_INVALID_WORK_ITEM_SIZE"; break;
        case CL_INVALID_GLOBAL_WORK_SIZE: name = "CL_INVALID_GLOBAL_WORK_SIZE"; break;
        case CL_INVALID_MEM_OBJECT: name = "CL_INVALID_MEM_OBJECT"; break;
        case CL_INVALID_BUFFER_SIZE: name = "CL_INVALID_BUFFER_SIZE"; break;
        case CL_INVALID_HOST_PTR: name = "CL_INVALID_HOST_PTR"; break;
        case CL_INVALID_COMMAND_QUEUE: name = "CL_INVALID_COMMAND_QUEUE"; break;
        case CL_INVALID_CONTEXT: name = "CL_INVALID_CONTEXT"; break;
        case CL_INVALID_EVENT: name = "CL_INVALID_EVENT"; break;
        case CL_INVALID_OPERATION: name = "CL_INVALID_OPERATION"; break;
        case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST: name = "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"; break;
        case -1001: name = "CL_PLATFORM_NOT_FOUND_KHR"; break;
        default: break;
    }
    return std::string(name ? name : "OpenCL error") + " (" + std::to_string(code) + ")";
}

}  // namespace mosaic::gpu_plugin
