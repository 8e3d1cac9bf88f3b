#pragma once
// Internal: the spdlog logger "netcl". Not installed, so consumers never need
// spdlog's headers. Level comes from NETCL_LOG_LEVEL (trace, debug, info,
// warn, error, off); the default is warn.
#include <spdlog/spdlog.h>

#include <memory>

namespace netcl {

spdlog::logger& log();

}  // namespace netcl
