#pragma once
#include <string>

#include "netcl/DeviceProfile.hpp"

namespace netcl::bench {

// What a reader needs to reproduce a run: where it ran and which netcl it was.
struct RunInfo {
    DeviceProfile device;
    std::string device_id;     // "0:0", as NETCL_DEVICE takes it
    std::string netcl_version;
    std::string git_revision;  // `git describe --always --dirty` when netcl-bench was built
    std::string started_utc;   // ISO 8601
    std::string command_line;
};

RunInfo collect_run_info(const DeviceProfile& device, const std::string& device_id, int argc, char** argv);

}  // namespace netcl::bench
