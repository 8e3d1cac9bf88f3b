#pragma once
#include <stdexcept>
#include <string>

namespace netcl::bench {

// A command line the tool cannot run (bad --shape, unknown --net or strategy
// name). main() prints it and exits with code 2, like CLI11's own parse errors.
class UsageError : public std::runtime_error {
public:
    explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

inline constexpr int kUsageExitCode = 2;

}  // namespace netcl::bench
