#pragma once
// Internal: a device's reported facts as a DeviceProfile.
#include "netcl/DeviceProfile.hpp"
#include "netcl/OpenCL.hpp"

namespace netcl {

// Reads the facts a device reports into a profile (tuned values empty).
DeviceProfile read_device_profile(const cl::Platform& platform, const cl::Device& device);

}  // namespace netcl
