#include "netcl/Version.hpp"

namespace netcl {

std::string version() { return NETCL_VERSION; }

}  // namespace netcl
