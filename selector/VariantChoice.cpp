#include "selector/VariantChoice.hpp"

#include <algorithm>

#include "ops/Implementations.hpp"
#include "ops/winograd/WinogradVariants.hpp"
#include "ops/winograd_gemm/WinogradGemmConfig.hpp"
#include "selector/Thresholds.hpp"

namespace netcl {

namespace {

// Winograd's variants in the order this profile prefers them: the preferred
// tile first (F(2x2) first when the output is smaller than
// winograd_f4_min_output, where F(4x4) would mostly compute padding); then
// separate transforms (winograd-gemm) before or after the fused kernel as
// winograd_prefer_gemm says; fused before low-local-memory unless the
// profile measured otherwise; __constant weights before __global where the
// profile allows constant weights (and not at all where it does not).
std::vector<Variant> ranked_winograd(const std::vector<Variant>& offered, const ConvShapes& s,
                                     const DeviceProfile& profile) {
    namespace k = threshold_key;
    int first_tile = threshold(profile, k::winograd_tile) == 2 ? 2 : 4;
    if (std::min(s.P(), s.Q()) < threshold(profile, k::winograd_f4_min_output)) first_tile = 2;
    const bool low_first = threshold(profile, k::winograd_prefer_low_local_memory) != 0;
    const bool try_constant = threshold(profile, k::winograd_constant_weights) != 0;
    const bool gemm_first = threshold(profile, k::winograd_prefer_gemm) != 0;
    const auto rank = [&](const Variant& id) {
        if (const auto m = winograd_gemm_tile(id)) return (*m == first_tile ? 0 : 100) + (gemm_first ? 0 : 20);
        const auto v = winograd_variant(id);
        if (!v) return 1000;  // another Winograd implementation's variant: after these, in list order
        return (v->m == first_tile ? 0 : 100) + (gemm_first ? 20 : 0) + (v->low_local_memory == low_first ? 0 : 10) +
               (v->constant_weights ? 0 : 1);
    };
    std::vector<Variant> ranked;
    for (const Variant& id : offered) {
        const auto v = winograd_variant(id);
        if (v && v->constant_weights && !try_constant) continue;
        ranked.push_back(id);
    }
    std::stable_sort(ranked.begin(), ranked.end(), [&](const Variant& a, const Variant& b) { return rank(a) < rank(b); });
    return ranked;
}

}  // namespace

std::vector<Variant> candidate_variants(Kernel kernel, const ConvShapes& s, const DeviceProfile& profile) {
    const std::vector<Variant> offered = variants_of(kernel);
    return kernel == Kernel::CONV2D_WINOGRAD ? ranked_winograd(offered, s, profile) : offered;
}

VariantChoice best_variant(Kernel kernel, const ConvShapes& s, const DeviceProfile& profile) {
    VariantChoice choice;
    for (const Variant& v : candidate_variants(kernel, s, profile)) {
        const auto reason = why_not(v, s, profile);
        if (!reason) {
            choice.variant = v;
            return choice;
        }
        // Shape-level reasons (filter size, stride) repeat for every variant: say them once.
        if (choice.why_not.find(*reason) == std::string::npos) {
            choice.why_not += (choice.why_not.empty() ? "" : "; ") + v.id + ": " + *reason;
        }
    }
    return choice;
}

}  // namespace netcl
