#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace netcl {

enum class DeviceType { CPU, GPU, ACCELERATOR, OTHER };
std::string to_string(DeviceType type);

// What a device says about itself, plus named tuned values that a profile
// store layers on top. The runtime fills the first part and never interprets
// the second; the selector reads and writes `tuned` by name.
struct DeviceProfile {
    std::string platform_name;
    std::string vendor;
    std::string name;
    DeviceType type = DeviceType::OTHER;
    std::string driver_version;
    std::string device_version;    // "OpenCL 3.0 PoCL ..."
    std::string opencl_c_version;  // "OpenCL C 1.2 ..."
    std::uint32_t compute_units = 0;
    std::uint32_t max_clock_mhz = 0;
    std::uint64_t global_mem_bytes = 0;
    std::uint64_t max_alloc_bytes = 0;
    std::uint64_t local_mem_bytes = 0;
    std::uint64_t max_constant_buffer_bytes = 0;
    std::uint32_t max_constant_args = 0;
    std::size_t max_work_group_size = 0;
    std::size_t preferred_work_group_multiple = 0;  // from a trivial kernel; 0 where unknown
    bool fp16 = false;
    bool fp64 = false;

    // Tuned values by name (thresholds, preferred sizes), and where they came from.
    std::map<std::string, double> tuned;
    std::string tuned_source = "built-in";

    double tuned_or(const std::string& key, double fallback) const;
};

}  // namespace netcl
