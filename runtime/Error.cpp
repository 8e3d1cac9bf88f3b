#include "netcl/Error.hpp"

#include "netcl/OpenCL.hpp"

namespace netcl {

namespace {

std::string compose(const std::string& operation, int status, const std::string& detail,
                    const std::string& build_log) {
    std::string text = operation + " failed: " + cl_error_name(status);
    if (!detail.empty()) text += " (" + detail + ")";
    if (!build_log.empty()) text += "\n--- build log ---\n" + build_log;
    return text;
}

}  // namespace

Error::Error(const std::string& message) : std::runtime_error(message) {}

Error::Error(const std::string& operation, int cl_status, const std::string& detail,
             std::string build_log)
    : std::runtime_error(compose(operation, cl_status, detail, build_log)),
      operation_(operation),
      cl_status_(cl_status),
      build_log_(std::move(build_log)) {}

Error::Error(const std::string& context, const Error& inner)
    : std::runtime_error(context + ": " + inner.what()),
      operation_(inner.operation_),
      cl_status_(inner.cl_status_),
      build_log_(inner.build_log_) {}

std::string cl_error_name(int status) {
    switch (status) {
#define NETCL_CASE(code) \
    case code:           \
        return #code;
        NETCL_CASE(CL_SUCCESS)
        NETCL_CASE(CL_DEVICE_NOT_FOUND)
        NETCL_CASE(CL_DEVICE_NOT_AVAILABLE)
        NETCL_CASE(CL_COMPILER_NOT_AVAILABLE)
        NETCL_CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        NETCL_CASE(CL_OUT_OF_RESOURCES)
        NETCL_CASE(CL_OUT_OF_HOST_MEMORY)
        NETCL_CASE(CL_PROFILING_INFO_NOT_AVAILABLE)
        NETCL_CASE(CL_MEM_COPY_OVERLAP)
        NETCL_CASE(CL_IMAGE_FORMAT_MISMATCH)
        NETCL_CASE(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        NETCL_CASE(CL_BUILD_PROGRAM_FAILURE)
        NETCL_CASE(CL_MAP_FAILURE)
        NETCL_CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        NETCL_CASE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        NETCL_CASE(CL_COMPILE_PROGRAM_FAILURE)
        NETCL_CASE(CL_LINKER_NOT_AVAILABLE)
        NETCL_CASE(CL_LINK_PROGRAM_FAILURE)
        NETCL_CASE(CL_DEVICE_PARTITION_FAILED)
        NETCL_CASE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        NETCL_CASE(CL_INVALID_VALUE)
        NETCL_CASE(CL_INVALID_DEVICE_TYPE)
        NETCL_CASE(CL_INVALID_PLATFORM)
        NETCL_CASE(CL_INVALID_DEVICE)
        NETCL_CASE(CL_INVALID_CONTEXT)
        NETCL_CASE(CL_INVALID_QUEUE_PROPERTIES)
        NETCL_CASE(CL_INVALID_COMMAND_QUEUE)
        NETCL_CASE(CL_INVALID_HOST_PTR)
        NETCL_CASE(CL_INVALID_MEM_OBJECT)
        NETCL_CASE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        NETCL_CASE(CL_INVALID_IMAGE_SIZE)
        NETCL_CASE(CL_INVALID_SAMPLER)
        NETCL_CASE(CL_INVALID_BINARY)
        NETCL_CASE(CL_INVALID_BUILD_OPTIONS)
        NETCL_CASE(CL_INVALID_PROGRAM)
        NETCL_CASE(CL_INVALID_PROGRAM_EXECUTABLE)
        NETCL_CASE(CL_INVALID_KERNEL_NAME)
        NETCL_CASE(CL_INVALID_KERNEL_DEFINITION)
        NETCL_CASE(CL_INVALID_KERNEL)
        NETCL_CASE(CL_INVALID_ARG_INDEX)
        NETCL_CASE(CL_INVALID_ARG_VALUE)
        NETCL_CASE(CL_INVALID_ARG_SIZE)
        NETCL_CASE(CL_INVALID_KERNEL_ARGS)
        NETCL_CASE(CL_INVALID_WORK_DIMENSION)
        NETCL_CASE(CL_INVALID_WORK_GROUP_SIZE)
        NETCL_CASE(CL_INVALID_WORK_ITEM_SIZE)
        NETCL_CASE(CL_INVALID_GLOBAL_OFFSET)
        NETCL_CASE(CL_INVALID_EVENT_WAIT_LIST)
        NETCL_CASE(CL_INVALID_EVENT)
        NETCL_CASE(CL_INVALID_OPERATION)
        NETCL_CASE(CL_INVALID_GL_OBJECT)
        NETCL_CASE(CL_INVALID_BUFFER_SIZE)
        NETCL_CASE(CL_INVALID_MIP_LEVEL)
        NETCL_CASE(CL_INVALID_GLOBAL_WORK_SIZE)
        NETCL_CASE(CL_INVALID_PROPERTY)
        NETCL_CASE(CL_INVALID_IMAGE_DESCRIPTOR)
        NETCL_CASE(CL_INVALID_COMPILER_OPTIONS)
        NETCL_CASE(CL_INVALID_LINKER_OPTIONS)
        NETCL_CASE(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef NETCL_CASE
        case -1001:
            return "CL_PLATFORM_NOT_FOUND_KHR";
        default:
            return "CL_UNKNOWN_ERROR(" + std::to_string(status) + ")";
    }
}

}  // namespace netcl
