#pragma once
// Internal: JSON <-> ProfileData. Uses nlohmann, so not installed.
#include <string>

#include "selector/ProfileData.hpp"

namespace netcl::detail {

// Throws netcl::Error naming `source` and what is wrong (syntax error and where,
// a missing or mistyped field, an unknown strategy name, a truncated file).
ProfileData parse_profile(const std::string& text, const std::string& source);
// Pretty-printed JSON that parse_profile reads back.
std::string serialize_profile(const ProfileData& profile);

}  // namespace netcl::detail
