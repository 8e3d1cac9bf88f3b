#include "selector/VariantChoice.hpp"

#include <algorithm>

#include "ops/StrategyLimits.hpp"
#include "selector/Thresholds.hpp"

namespace netcl {

std::vector<Variant> candidate_variants(Kernel kernel, const ConvShapes& s, const DeviceProfile& profile) {
    if (kernel != Kernel::CONV2D_WINOGRAD) return {Variant{}};
    namespace k = threshold_key;
    int first_tile = threshold(profile, k::winograd_tile) == 2 ? 2 : 4;
    if (std::min(s.P(), s.Q()) < threshold(profile, k::winograd_f4_min_output)) first_tile = 2;
    const bool low_first = threshold(profile, k::winograd_prefer_low_local_memory) != 0;
    std::vector<bool> weight_choices = {false};
    if (threshold(profile, k::winograd_constant_weights) != 0) weight_choices = {true, false};

    std::vector<Variant> variants;
    for (const int tile : {first_tile, 6 - first_tile}) {
        for (const bool low : {low_first, !low_first}) {
            for (const bool constant : weight_choices) variants.push_back(Variant{tile, low, constant});
        }
    }
    return variants;
}

VariantChoice best_variant(Kernel kernel, const ConvShapes& s, const DeviceProfile& profile) {
    VariantChoice choice;
    for (const Variant& v : candidate_variants(kernel, s, profile)) {
        const auto reason = why_not(kernel, v, s, profile);
        if (!reason) {
            choice.variant = v;
            return choice;
        }
        const std::string label = kernel == Kernel::CONV2D_WINOGRAD ? v.str() + ": " : "";
        // Shape-level reasons (filter size, stride) repeat for every variant: say them once.
        if (choice.why_not.find(*reason) == std::string::npos) {
            choice.why_not += (choice.why_not.empty() ? "" : "; ") + label + *reason;
        }
    }
    return choice;
}

}  // namespace netcl
