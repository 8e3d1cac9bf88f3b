// Depthwise and thin grouped layers: each group reduces over only C/groups·R·S
// values, too short for a GEMM or a transform-domain reduction.
#include "selector/Thresholds.hpp"
#include "selector/internal/RuleFactories.hpp"

namespace netcl::detail {

namespace {

class GroupedRule final : public BuiltinRule {
public:
    std::string name() const override { return "grouped"; }
    RuleVerdict evaluate(const ConvShapes& s, const DeviceProfile& profile) const override {
        if (s.groups == 1) return reject("not grouped");
        const double min_per_group = threshold(profile, threshold_key::grouped_min_channels_per_group);
        const auto per_group = s.C / s.groups;
        if (per_group < min_per_group) {
            return accept_best(Kernel::CONV2D_NAIVE, s, profile,
                          std::string(per_group == 1 ? "depthwise" : "grouped") + " layer: " + std::to_string(per_group) +
                              " input channel(s) per group < grouped_min_channels_per_group " + number(min_per_group));
        }
        return reject(std::to_string(per_group) + " input channels per group >= grouped_min_channels_per_group " +
                      number(min_per_group));
    }
};

}  // namespace

std::unique_ptr<const BuiltinRule> make_grouped_rule() { return std::make_unique<GroupedRule>(); }

}  // namespace netcl::detail
