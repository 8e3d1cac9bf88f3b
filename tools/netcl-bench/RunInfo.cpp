#include "RunInfo.hpp"

#include <ctime>

#include "netcl_git_revision.hpp"  // generated at build time

#ifndef NETCL_BENCH_VERSION
#define NETCL_BENCH_VERSION "unknown"
#endif

namespace netcl::bench {

RunInfo collect_run_info(const DeviceProfile& device, const std::string& device_id, int argc, char** argv) {
    RunInfo info;
    info.device = device;
    info.device_id = device_id;
    info.netcl_version = NETCL_BENCH_VERSION;
    info.git_revision = NETCL_GIT_REVISION;
    const std::time_t now = std::time(nullptr);
    char stamp[32] = {};
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    info.started_utc = stamp;
    for (int i = 0; i < argc; ++i) {
        if (i) info.command_line += ' ';
        info.command_line += argv[i];
    }
    return info;
}

}  // namespace netcl::bench
