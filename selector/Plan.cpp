#include "selector/Plan.hpp"

namespace netcl {

std::string Variant::str() const {
    if (winograd_tile == 0) return "default";
    return "F(" + std::to_string(winograd_tile) + "x" + std::to_string(winograd_tile) + ",3x3) " +
           (low_local_memory ? "low-local-memory" : "fused") + " " +
           (constant_weights ? "constant-weights" : "global-weights");
}

std::string Plan::str() const {
    std::string text = to_string(kernel);
    if (kernel == Kernel::CONV2D_WINOGRAD) text += " " + variant.str();
    return reason.empty() ? text : text + ": " + reason;
}

}  // namespace netcl
