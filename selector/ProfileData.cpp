#include "selector/ProfileData.hpp"

#include <algorithm>
#include <cctype>

namespace netcl {

namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

bool contains_nocase(const std::string& haystack, const std::string& needle) {
    return lower(haystack).find(lower(needle)) != std::string::npos;
}

}  // namespace

std::string record_key(const ConvShapes& shapes) { return shapes.str(); }

int ProfileData::specificity() const {
    if (match.count("name")) return match.count("driver") ? 3 : 2;
    return match.empty() ? 0 : 1;
}

bool ProfileData::matches(const DeviceProfile& d) const {
    for (const auto& [key, value] : match) {
        const bool ok = key == "vendor"     ? contains_nocase(d.vendor, value)
                        : key == "platform" ? contains_nocase(d.platform_name, value)
                        : key == "name"     ? contains_nocase(d.name, value)
                        : key == "type"     ? to_string(d.type) == value
                        : key == "driver"   ? d.driver_version == value
                                            : false;
        if (!ok) return false;
    }
    return true;
}

}  // namespace netcl
