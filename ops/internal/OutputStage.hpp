#pragma once
// Internal: kernels_cl/post_ops.cl, the output stage every kernel that writes
// a forward output includes, and its build options for a layer's post-ops.
#include <cstddef>
#include <string>

#include "netcl/DataType.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/PostOps.hpp"

namespace netcl::internal {

// "" without post-ops (the program is then the one built before post-ops
// existed), else " -DPOST_ACT=... [-DPOST_SUM]" with the constants as exact
// hexadecimal float literals.
std::string post_ops_options(const PostOps& post_ops);
// The source to put before a kernel that stores through POST_OPS.
std::string post_ops_source();
// Whether a kernel stores its output past the caches (STREAM_OUTPUT,
// kernels_cl/storage.cl): where one launch writes at least the profile's
// stream_output_min_bytes (0, the default: never), no sum post-op reads the
// output first, the output is float32 (half has no non-temporal store
// there), and the device is a CPU. The launch's bytes, not the layer's: what
// the next launch or layer could still find in the caches.
bool stream_output(const DeviceProfile& profile, std::size_t launch_output_bytes, const PostOps& post_ops,
                   DataType type);
// What a configuration's description says where it streams.
inline constexpr const char* kStreamedOutputs = ", outputs streamed past the caches";

}  // namespace netcl::internal
