#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../ops/ConvShapes.hpp"
#include "../ops/Kernel.hpp"
#include "../runtime/DeviceProfile.hpp"
#include "Plan.hpp"

namespace netcl {

using ConvPredicate = std::function<bool(const ConvShapes&, const DeviceProfile&)>;

// One candidate the selector looked at, and why it was or was not taken.
struct Candidate {
    std::string source;  // "rule #3 (priority 100)", "default strategy", "tuned record", "built-in: ..."
    Plan plan;
    bool accepted = false;
    std::string reason;
};

// The whole decision for one shape: the plan and every candidate considered.
struct Decision {
    Plan plan;
    std::vector<Candidate> candidates;
};

// Decides which strategy runs a convolution. Order: a rule a framework
// registered (by priority; ties: latest first); else the global default
// strategy if it can take the shape; else a tuned record for this device and
// shape; else the built-in rules. Thread-safe.
class KernelSelector {
public:
    using RuleHandle = std::uint64_t;

    KernelSelector();
    ~KernelSelector();
    static KernelSelector& global();

    // A rule: when `predicate` holds, run `kernel` (with `variant` if given,
    // else the best variant that can take the shape).
    RuleHandle register_rule(const std::string& op, ConvPredicate predicate, Kernel kernel, int priority = 0,
                             std::optional<Variant> variant = std::nullopt);
    bool remove_rule(RuleHandle handle);

    Plan select(const std::string& op, const ConvShapes& shapes, const DeviceProfile& profile) const;
    Decision explain(const std::string& op, const ConvShapes& shapes, const DeviceProfile& profile) const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

// The global default strategy (NETCL_CONV_STRATEGY sets it at start-up).
void set_default_conv_strategy(Kernel kernel);
void clear_default_conv_strategy();
std::optional<Kernel> default_conv_strategy();

}  // namespace netcl
