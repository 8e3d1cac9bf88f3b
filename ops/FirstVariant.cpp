#include "ops/FirstVariant.hpp"

#include <vector>

#include "ops/StrategyLimits.hpp"

namespace netcl {

std::optional<Variant> first_runnable_variant(Kernel kernel, const ConvShapes& shapes, const DeviceProfile& profile,
                                              std::string* reason) {
    std::vector<Variant> order{Variant{}};
    if (kernel == Kernel::CONV2D_WINOGRAD) {
        order = {Variant{4, false, false}, Variant{4, true, false}, Variant{2, false, false}, Variant{2, true, false}};
    }
    std::optional<std::string> first_reason;
    for (const Variant& variant : order) {
        const auto why = why_not(kernel, variant, shapes, profile);
        if (!why) return variant;
        if (!first_reason) first_reason = *why;
    }
    if (reason) *reason = first_reason.value_or("no variant");
    return std::nullopt;
}

}  // namespace netcl
