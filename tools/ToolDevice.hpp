#pragma once
// The device a netcl tool runs on: `selector` (a --device flag) when given,
// else NETCL_DEVICE, else the default device. A selector that names no device
// is a usage error like a bad flag: the message on stderr and exit code 2.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "netcl/Context.hpp"
#include "netcl/Error.hpp"

namespace netcl::tools {

inline std::string device_selector(const std::string& flag) {
    if (!flag.empty()) return flag;
    const char* env = std::getenv("NETCL_DEVICE");
    return env ? env : "";
}

// Index of the chosen device in `entries`, or exit(2) with the reason.
inline std::size_t pick_device_or_exit(const char* tool, const std::vector<DeviceEntry>& entries,
                                       const std::string& flag) {
    try {
        return Context::pick(entries, device_selector(flag));
    } catch (const Error& error) {
        std::fprintf(stderr, "%s: %s\n", tool, error.what());
        std::exit(2);
    }
}

inline std::shared_ptr<Context> tool_context(const char* tool, const std::string& flag = {}) {
    const auto entries = Context::devices();
    return std::make_shared<Context>(entries[pick_device_or_exit(tool, entries, flag)]);
}

}  // namespace netcl::tools
