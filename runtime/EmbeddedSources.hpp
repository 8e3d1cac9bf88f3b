#pragma once
#include <string>
#include <vector>

namespace netcl {

// The OpenCL C sources of kernels_cl/, embedded at build time. `name` is the
// file name without ".cl". When NETCL_KERNEL_DIR is set and holds name.cl,
// that file is read instead (for kernel development without rebuilding).
// Throws netcl::Error for an unknown name, listing the known ones.
std::string embedded_source(const std::string& name);
std::vector<std::string> embedded_source_names();

}  // namespace netcl
