// im2col + SGEMM where the GEMM is large enough to pay for the column pass and
// the column workspace fits the profile's limit.
#include "ops/StrategyLimits.hpp"
#include "selector/Thresholds.hpp"
#include "selector/internal/RuleFactories.hpp"

namespace netcl::detail {

namespace {

class Im2colRule final : public BuiltinRule {
public:
    std::string name() const override { return "im2col"; }
    RuleVerdict evaluate(const ConvShapes& s, const DeviceProfile& profile) const override {
        const double min_flops = threshold(profile, threshold_key::im2col_min_flops);
        if (s.direct_flops() < min_flops) {
            return reject("GEMM too small: " + number(s.direct_flops()) + " flops < im2col_min_flops " + number(min_flops));
        }
        if (const auto reason = why_not(Kernel::IM2COL, {}, s, profile)) return reject(*reason);
        return accept(Kernel::IM2COL, {},
                      "GEMM of " + number(s.direct_flops()) + " flops >= im2col_min_flops " + number(min_flops) +
                          " and the " + std::to_string(workspace_bytes(Kernel::IM2COL, {}, s)) +
                          "-byte workspace fits the limit of " + std::to_string(im2col_workspace_limit(profile)));
    }
};

}  // namespace

std::unique_ptr<const BuiltinRule> make_im2col_rule() { return std::make_unique<Im2colRule>(); }

}  // namespace netcl::detail
