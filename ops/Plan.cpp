#include "netcl/Plan.hpp"

namespace netcl {

std::string Plan::str() const {
    std::string text = to_string(kernel);
    if (!variant.empty()) text += " " + variant.id;
    if (!config.empty()) text += " [" + config + "]";
    return reason.empty() ? text : text + ": " + reason;
}

}  // namespace netcl
