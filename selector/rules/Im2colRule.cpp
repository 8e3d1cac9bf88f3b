// GEMM-based convolution where the GEMM is large enough to pay for the column
// pass, with the first IM2COL variant that can take the layer (its workspace
// within the limit).
#include "ops/Implementations.hpp"
#include "selector/Thresholds.hpp"
#include "selector/VariantChoice.hpp"
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
        const VariantChoice choice = best_variant(Kernel::IM2COL, s, profile);
        if (!choice.variant) return reject(choice.why_not);
        const std::size_t workspace = implementation_of(*choice.variant).workspace_bytes(*choice.variant, s, profile);
        return accept(Kernel::IM2COL, *choice.variant,
                      "GEMM of " + number(s.direct_flops()) + " flops >= im2col_min_flops " + number(min_flops) +
                          "; workspace " + std::to_string(workspace) + " bytes, within the limit");
    }
};

}  // namespace

std::unique_ptr<const BuiltinRule> make_im2col_rule() { return std::make_unique<Im2colRule>(); }

}  // namespace netcl::detail
