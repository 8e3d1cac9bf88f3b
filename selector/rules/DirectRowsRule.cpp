// Few input channels and a long enough reduction (ResNet's stem: C = 3, 7x7,
// 147 steps): the row-vectorised direct convolution, where the profile
// enables it (direct_rows_max_channels > 0). On those layers the implicit
// GEMM stores each pixel's channels as scalars after a short reduction;
// direct-rows stores whole rows (the stem at N = 8 on the AVX-512 PoCL
// profile: 8.5-17.7 ms on the implicit GEMM, README for this rule's figure).
// Reductions of at most im2col_gemm_max_reduction stay with im2col-gemm
// (VGG's conv1.1, 27 steps: 1.4 ms here against 0.6-1.2), but filters larger
// than 1x1 where the profile sets direct_rows_short_reductions: on an Intel
// Xeon direct-rows ran conv1.1 at 0.74-0.75x of oneDNN at N = 1 and, its
// output streamed past the caches, 0.79-0.83x at N = 8, against
// im2col-gemm's 0.47-0.64x and 0.50-0.54x (pocl-cpu-avx512-intel.json
// item 19).
#include "ops/Implementations.hpp"
#include "selector/Thresholds.hpp"
#include "selector/VariantChoice.hpp"
#include "selector/internal/RuleFactories.hpp"

namespace netcl::detail {

namespace {

class DirectRowsRule final : public BuiltinRule {
public:
    std::string name() const override { return "direct-rows"; }
    RuleVerdict evaluate(const ConvShapes& s, const DeviceProfile& profile) const override {
        namespace k = threshold_key;
        const double max_channels = threshold(profile, k::direct_rows_max_channels);
        // Backward data sums dy's K channels (it runs as forward with C and K swapped).
        const std::string summed = s.direction == ConvDirection::BACKWARD_DATA ? "K/groups" : "C/groups";
        const double channels = static_cast<double>(reduced_channels(s));
        if (channels > max_channels) {
            return reject(summed + " " + number(channels) + " > direct_rows_max_channels " + number(max_channels));
        }
        const double reduction = channels * static_cast<double>(s.R * s.S);
        const double short_reduction = threshold(profile, k::im2col_gemm_max_reduction);
        const bool takes_short = threshold(profile, k::direct_rows_short_reductions) != 0 && s.R * s.S > 1;
        if (reduction <= short_reduction && !takes_short) {
            return reject("reduction " + summed + "*R*S " + number(reduction) + " <= im2col_gemm_max_reduction " +
                          number(short_reduction) + " (im2col-gemm takes short reductions)");
        }
        const Variant variant("direct-rows");
        if (auto reason = why_not(variant, s, profile)) return reject(*reason);
        const std::string over =
            reduction > short_reduction
                ? " > im2col_gemm_max_reduction " + number(short_reduction)
                : " <= im2col_gemm_max_reduction " + number(short_reduction) + " but direct_rows_short_reductions";
        return accept(Kernel::CONV2D_NAIVE, variant,
                      "few input channels: " + summed + " " + number(channels) + " <= direct_rows_max_channels " +
                          number(max_channels) + " over a reduction of " + number(reduction) + over +
                          "; outputs stored as whole rows");
    }
};

}  // namespace

std::unique_ptr<const BuiltinRule> make_direct_rows_rule() { return std::make_unique<DirectRowsRule>(); }

}  // namespace netcl::detail
