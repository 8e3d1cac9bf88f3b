#pragma once
#include <stdexcept>
#include <string>

namespace netcl {

// The one exception netcl throws. It says which operation failed, and for
// OpenCL failures the error's name (not just its number); for program builds
// it carries the compiler's log.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message);
    Error(const std::string& operation, int cl_status, const std::string& detail = {},
          std::string build_log = {});
    // `inner` with what netcl was doing when it happened in front (e.g. the
    // layer and its plan); the OpenCL status and build log are kept.
    Error(const std::string& context, const Error& inner);

    const std::string& operation() const noexcept { return operation_; }
    int cl_status() const noexcept { return cl_status_; }  // CL_SUCCESS (0) when not an OpenCL failure
    const std::string& build_log() const noexcept { return build_log_; }

private:
    std::string operation_;
    int cl_status_ = 0;
    std::string build_log_;
};

// "CL_OUT_OF_RESOURCES" for -5, "CL_UNKNOWN_ERROR(-1234)" for codes it does not know.
std::string cl_error_name(int status);

}  // namespace netcl

// Validation that is never compiled out: throws netcl::Error carrying the
// failing expression and a message saying what was expected.
#define NETCL_REQUIRE(cond, message)                                                       \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            throw ::netcl::Error(std::string(message) + " [failed: " #cond "]");           \
        }                                                                                  \
    } while (0)

// Checks an OpenCL status code; `operation` says what netcl was doing.
#define NETCL_CL_CHECK(status_expr, operation)                                             \
    do {                                                                                   \
        const int netcl_status_ = static_cast<int>(status_expr);                           \
        if (netcl_status_ != 0) {                                                          \
            throw ::netcl::Error(operation, netcl_status_, #status_expr);                  \
        }                                                                                  \
    } while (0)
