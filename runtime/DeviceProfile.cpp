#include "netcl/DeviceProfile.hpp"

namespace netcl {

std::string to_string(DeviceType type) {
    switch (type) {
        case DeviceType::CPU: return "CPU";
        case DeviceType::GPU: return "GPU";
        case DeviceType::ACCELERATOR: return "ACCELERATOR";
        case DeviceType::OTHER: break;
    }
    return "OTHER";
}

double DeviceProfile::tuned_or(const std::string& key, double fallback) const {
    const auto it = tuned.find(key);
    return it == tuned.end() ? fallback : it->second;
}

}  // namespace netcl
