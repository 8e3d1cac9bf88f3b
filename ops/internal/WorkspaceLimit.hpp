#pragma once
// Internal: the workspace cap of an implementation that sizes its passes or
// chunks to one: the profile's value under `key`, else a quarter of the
// device's largest allocation (256 MiB where the device does not say).
#include <cstddef>

#include "netcl/DeviceProfile.hpp"

namespace netcl::internal {

inline std::size_t workspace_limit(const DeviceProfile& profile, const char* key) {
    const double fallback =
        profile.max_alloc_bytes ? static_cast<double>(profile.max_alloc_bytes) / 4 : 256.0 * (1 << 20);
    return static_cast<std::size_t>(profile.tuned_or(key, fallback));
}

}  // namespace netcl::internal
