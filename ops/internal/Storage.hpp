#pragma once
// Internal: kernels_cl/storage.cl, how every kernel reads and writes a
// caller's tensor in the layer's DataType, and its build option.
#include <string>

#include "netcl/DataType.hpp"

namespace netcl::internal {

// "" for float32 (the program is then the one built before float16 existed),
// " -DSTORAGE_HALF" for float16.
std::string storage_options(DataType type);
// The source to put before a kernel that reads or writes a tensor through LOAD/STORE.
std::string storage_source();

}  // namespace netcl::internal
