#include "runtime/Log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>

namespace netcl {

namespace {

std::shared_ptr<spdlog::logger> make_logger() {
    auto existing = spdlog::get("netcl");
    if (existing) return existing;  // a framework may have registered its own sink
    auto logger = spdlog::stderr_color_mt("netcl");
    logger->set_pattern("[netcl %l] %v");
    logger->set_level(spdlog::level::warn);
    if (const char* level = std::getenv("NETCL_LOG_LEVEL"); level && *level) {
        const auto parsed = spdlog::level::from_str(level);
        // from_str answers "off" for a name it does not know; take that only when asked for.
        if (parsed != spdlog::level::off || std::string(level) == "off") {
            logger->set_level(parsed);
        } else {
            logger->warn("NETCL_LOG_LEVEL='{}' is not a level; expected trace, debug, info, warn, error or off", level);
        }
    }
    return logger;
}

}  // namespace

spdlog::logger& log() {
    static const std::shared_ptr<spdlog::logger> logger = make_logger();
    return *logger;
}

}  // namespace netcl
