#pragma once
#include <memory>
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/Plan.hpp"

namespace netcl {

// A built-in rule's answer: take the shape with this plan, or pass with a reason.
struct RuleVerdict {
    bool accepted = false;
    Plan plan;           // when accepted; plan.reason says why
    std::string reason;  // when rejected
};

// One small built-in rule (oneDNN-style dispatch list): it reads thresholds from
// the profile (threshold_key) and the strategy limits, never device names.
class BuiltinRule {
public:
    virtual ~BuiltinRule() = default;
    virtual std::string name() const = 0;
    virtual RuleVerdict evaluate(const ConvShapes& shapes, const DeviceProfile& profile) const = 0;
};

// The rules in the order they are tried; the last (direct convolution) takes every shape.
const std::vector<std::unique_ptr<const BuiltinRule>>& builtin_rules();

}  // namespace netcl
