#pragma once
// Internal: kernels_cl/post_ops.cl, the output stage every kernel that writes
// a forward output includes, and its build options for a layer's post-ops.
#include <string>

#include "netcl/PostOps.hpp"

namespace netcl::internal {

// "" without post-ops (the program is then the one built before post-ops
// existed), else " -DPOST_ACT=... [-DPOST_SUM]" with the constants as exact
// hexadecimal float literals.
std::string post_ops_options(const PostOps& post_ops);
// The source to put before a kernel that stores through POST_OPS.
std::string post_ops_source();

}  // namespace netcl::internal
