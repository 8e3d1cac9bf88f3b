#pragma once
// Internal: one factory per built-in rule (each rule lives in selector/rules/),
// assembled in order by BuiltinRules.cpp.
#include <memory>
#include <sstream>
#include <string>

#include "selector/BuiltinRules.hpp"
#include "selector/VariantChoice.hpp"

namespace netcl::detail {

std::unique_ptr<const BuiltinRule> make_tiny_layer_rule();
std::unique_ptr<const BuiltinRule> make_grouped_rule();
std::unique_ptr<const BuiltinRule> make_winograd_rule();
std::unique_ptr<const BuiltinRule> make_direct_rows_rule();
std::unique_ptr<const BuiltinRule> make_im2col_rule();
std::unique_ptr<const BuiltinRule> make_naive_rule();

inline RuleVerdict accept(Kernel kernel, Variant variant, std::string reason) {
    RuleVerdict verdict{true, {}, {}};
    verdict.plan.kernel = kernel;
    verdict.plan.variant = std::move(variant);
    verdict.plan.reason = std::move(reason);
    return verdict;
}
inline RuleVerdict reject(std::string reason) { return {false, {}, std::move(reason)}; }
// Accept `kernel` with the variant the profile ranks first among those that
// can take the shape (every implementation under `kernel` is asked).
inline RuleVerdict accept_best(Kernel kernel, const ConvShapes& s, const DeviceProfile& profile, std::string reason) {
    const VariantChoice choice = best_variant(kernel, s, profile);
    if (!choice.variant) return reject(to_string(kernel) + " cannot take this layer: " + choice.why_not);
    return accept(kernel, *choice.variant, std::move(reason));
}

// Thresholds print as integers when they are ("2e+06" reads badly in a reason).
inline std::string number(double value) {
    std::ostringstream text;
    text.precision(value == static_cast<double>(static_cast<long long>(value)) ? 20 : 4);
    text << value;
    return text.str();
}

}  // namespace netcl::detail
