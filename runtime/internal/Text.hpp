#pragma once
// Internal: case-insensitive matching of device names (NETCL_DEVICE, profile
// "match" entries), where vendors spell the same name in different cases.
#include <algorithm>
#include <cctype>
#include <string>

namespace netcl::internal {

inline std::string lowercase(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

inline bool contains_ignoring_case(const std::string& haystack, const std::string& needle) {
    return lowercase(haystack).find(lowercase(needle)) != std::string::npos;
}

}  // namespace netcl::internal
