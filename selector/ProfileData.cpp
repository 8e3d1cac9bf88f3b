#include "selector/ProfileData.hpp"

#include "runtime/internal/Text.hpp"

namespace netcl {

namespace {

using internal::contains_ignoring_case;

}  // namespace

// A tuned record is the layer's whatever its output stage: the post-ops add
// the same work at the stores of every candidate (im2col + CLBlast excepted:
// one pass more), so a record measured without them ranks the same with them.
std::string record_key(const ConvShapes& shapes) {
    ConvShapes without = shapes;
    without.post_ops = {};
    return without.str();
}

int ProfileData::specificity() const {
    if (match.count("name")) return match.count("driver") ? 5 : match.count("vendor") ? 4 : 3;
    return match.count("vendor") ? 2 : match.empty() ? 0 : 1;
}

bool ProfileData::matches(const DeviceProfile& d) const {
    for (const auto& [key, value] : match) {
        const bool ok = key == "vendor"     ? contains_ignoring_case(d.vendor, value)
                        : key == "platform" ? contains_ignoring_case(d.platform_name, value)
                        : key == "name"     ? contains_ignoring_case(d.name, value)
                        : key == "type"     ? to_string(d.type) == value
                        : key == "driver"   ? d.driver_version == value
                                            : false;
        if (!ok) return false;
    }
    return true;
}

}  // namespace netcl
