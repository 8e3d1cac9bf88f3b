// netcl.DeviceProfile: what a device says about itself plus the tuned values
// the selector layers on top; the second argument every selector predicate gets.
#include "bindings.hpp"

#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>

#include "netcl/DeviceProfile.hpp"

namespace netcl::python {

void bind_profile(nb::module_& m) {
    // Read-only: a predicate gets the profile by reference for one decision,
    // and a change there would change nothing (the selector reads its own copy).
    nb::class_<DeviceProfile>(m, "DeviceProfile",
                              "What an OpenCL device says about itself, plus tuned values by name.")
        .def_ro("platform_name", &DeviceProfile::platform_name)
        .def_ro("vendor", &DeviceProfile::vendor)
        .def_ro("name", &DeviceProfile::name)
        .def_prop_ro("type", [](const DeviceProfile& p) { return to_string(p.type); },
                     "'CPU', 'GPU', 'ACCELERATOR' or 'OTHER'.")
        .def_ro("driver_version", &DeviceProfile::driver_version)
        .def_ro("device_version", &DeviceProfile::device_version)
        .def_ro("opencl_c_version", &DeviceProfile::opencl_c_version)
        .def_ro("compute_units", &DeviceProfile::compute_units)
        .def_ro("max_clock_mhz", &DeviceProfile::max_clock_mhz)
        .def_ro("global_mem_bytes", &DeviceProfile::global_mem_bytes)
        .def_ro("max_alloc_bytes", &DeviceProfile::max_alloc_bytes)
        .def_ro("local_mem_bytes", &DeviceProfile::local_mem_bytes)
        .def_ro("max_constant_buffer_bytes", &DeviceProfile::max_constant_buffer_bytes)
        .def_ro("max_constant_args", &DeviceProfile::max_constant_args)
        .def_ro("max_work_group_size", &DeviceProfile::max_work_group_size)
        .def_ro("preferred_work_group_multiple", &DeviceProfile::preferred_work_group_multiple)
        .def_ro("fp16", &DeviceProfile::fp16)
        .def_ro("fp64", &DeviceProfile::fp64)
        .def_prop_ro("tuned", [](const DeviceProfile& p) { return p.tuned; },
                     "Tuned values by name (a copy: thresholds, preferred sizes).")
        .def_ro("tuned_source", &DeviceProfile::tuned_source)
        .def("tuned_or", &DeviceProfile::tuned_or, "key"_a, "fallback"_a)
        .def("__repr__", [](const DeviceProfile& p) {
            return "DeviceProfile(" + to_string(p.type) + " '" + p.name + "', platform '" + p.platform_name +
                   "', " + std::to_string(p.compute_units) + " compute units, " +
                   std::to_string(p.local_mem_bytes / 1024) + " KiB local)";
        });
}

}  // namespace netcl::python
