// The last resort: direct convolution takes every valid layer (any stride,
// padding, dilation, groups).
#include "selector/internal/RuleFactories.hpp"

namespace netcl::detail {

namespace {

class NaiveRule final : public BuiltinRule {
public:
    std::string name() const override { return "naive"; }
    RuleVerdict evaluate(const ConvShapes& s, const DeviceProfile& profile) const override {
        return accept_best(Kernel::CONV2D_NAIVE, s, profile, "no faster strategy took this layer; direct convolution takes every shape");
    }
};

}  // namespace

std::unique_ptr<const BuiltinRule> make_naive_rule() { return std::make_unique<NaiveRule>(); }

}  // namespace netcl::detail
