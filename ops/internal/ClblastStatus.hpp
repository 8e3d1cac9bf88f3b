#pragma once
// CLBlast status codes as netcl::Error. Internal: includes clblast.h.
#include <clblast.h>

#include <string>

namespace netcl::internal {

// "kInvalidLeadDimB (-1015)"; OpenCL-shared codes by their CL_ name.
std::string clblast_status_name(clblast::StatusCode status);
// Throws netcl::Error naming `operation` and the status unless it is kSuccess.
void check_clblast(clblast::StatusCode status, const std::string& operation);

}  // namespace netcl::internal
