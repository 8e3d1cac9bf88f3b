// Reads a device's reported facts into a DeviceProfile.
#include <string>

#include "runtime/DeviceQuery.hpp"

namespace netcl {

namespace {

template <cl_device_info Info, typename T>
T query(const cl::Device& device, T fallback) {
    T value{};
    return device.getInfo(Info, &value) == CL_SUCCESS ? value : fallback;
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
    return text;
}

}  // namespace

DeviceProfile read_device_profile(const cl::Platform& platform, const cl::Device& device) {
    DeviceProfile p;
    std::string text;
    platform.getInfo(CL_PLATFORM_NAME, &text);
    p.platform_name = trimmed(text);
    p.vendor = trimmed(query<CL_DEVICE_VENDOR>(device, std::string("unknown")));
    p.name = trimmed(query<CL_DEVICE_NAME>(device, std::string("unknown")));
    p.driver_version = trimmed(query<CL_DRIVER_VERSION>(device, std::string()));
    p.device_version = trimmed(query<CL_DEVICE_VERSION>(device, std::string()));
    p.opencl_c_version = trimmed(query<CL_DEVICE_OPENCL_C_VERSION>(device, std::string()));
    const auto type = query<CL_DEVICE_TYPE>(device, cl_device_type{0});
    p.type = (type & CL_DEVICE_TYPE_GPU)           ? DeviceType::GPU
             : (type & CL_DEVICE_TYPE_CPU)         ? DeviceType::CPU
             : (type & CL_DEVICE_TYPE_ACCELERATOR) ? DeviceType::ACCELERATOR
                                                   : DeviceType::OTHER;
    p.compute_units = query<CL_DEVICE_MAX_COMPUTE_UNITS>(device, cl_uint{0});
    p.max_clock_mhz = query<CL_DEVICE_MAX_CLOCK_FREQUENCY>(device, cl_uint{0});
    p.global_mem_bytes = query<CL_DEVICE_GLOBAL_MEM_SIZE>(device, cl_ulong{0});
    p.max_alloc_bytes = query<CL_DEVICE_MAX_MEM_ALLOC_SIZE>(device, cl_ulong{0});
    p.local_mem_bytes = query<CL_DEVICE_LOCAL_MEM_SIZE>(device, cl_ulong{0});
    p.max_constant_buffer_bytes = query<CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE>(device, cl_ulong{0});
    p.max_constant_args = query<CL_DEVICE_MAX_CONSTANT_ARGS>(device, cl_uint{0});
    p.max_work_group_size = query<CL_DEVICE_MAX_WORK_GROUP_SIZE>(device, std::size_t{0});
    const std::string extensions = query<CL_DEVICE_EXTENSIONS>(device, std::string());
    p.fp16 = extensions.find("cl_khr_fp16") != std::string::npos;
    p.fp64 = extensions.find("cl_khr_fp64") != std::string::npos;
    // OpenCL 1.2 reports the preferred work-group multiple only per kernel:
    // Context fills it from a probe kernel once the program cache exists.
    return p;
}

}  // namespace netcl
