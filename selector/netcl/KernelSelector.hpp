#pragma once
// Decides which strategy, implementation and variant run a convolution, and
// says why: frameworks register their own rules and set a global default.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"
#include "netcl/Kernel.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/Plan.hpp"

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
    std::string problem;  // the shapes decided for (ConvShapes::str(): direction, type, post-ops)
    Plan plan;
    std::vector<Candidate> candidates;
    std::vector<std::string> profile_sources;  // stored profiles layered for this device
    std::string str() const;                    // one line per candidate, then the plan
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
    // else the best variant that can take the shape). `op` is one of
    // selector_ops(); the rule is asked only about problems of that op (a
    // direction and rank: "conv2d", "conv2d_backward_data", ...).
    // A predicate that throws is logged (once per rule) and skipped.
    RuleHandle register_rule(const std::string& op, ConvPredicate predicate, Kernel kernel, int priority = 0,
                             std::optional<Variant> variant = std::nullopt);
    bool remove_rule(RuleHandle handle);

    std::size_t rule_count() const;

    // `profile` is the device's (Context::profile()); tuned values it does not
    // set are taken from the stored profile for that device. `op` must be
    // selector_op(shapes). Throws netcl::Error for an unknown op, one that is
    // not the problem's, an invalid shape, or a bad NETCL_CONV_STRATEGY.
    Plan select(const std::string& op, const ConvShapes& shapes, const DeviceProfile& profile) const;
    Decision explain(const std::string& op, const ConvShapes& shapes, const DeviceProfile& profile) const;
    // A strict override: `kernel` with `variant` (or, without one, the variant
    // this selector ranks first among those that can take the shape). Throws
    // netcl::Error naming the strategy, the shape and the reason when it cannot.
    Plan select_strategy(const std::string& op, Kernel kernel, const std::optional<Variant>& variant,
                         const ConvShapes& shapes, const DeviceProfile& profile) const;

    // The profile plans are made against: the device's facts and the caller's
    // tuned values, with the stored profiles' tuned values (shipped, then the
    // user's) for every key the caller did not set. Conv2d plans and builds
    // its strategy from this one profile.
    static DeviceProfile resolve_profile(const DeviceProfile& device);

private:
    struct State;
    std::unique_ptr<State> state_;
};

// The op names the selector plans under, one per spatial rank and direction:
// "conv2d", "conv2d_backward_data", "conv2d_backward_weights", "conv3d", ...
const std::vector<std::string>& selector_ops();
// The op of a problem (its rank and direction; the data type is a field the
// predicates see, not an op of its own).
std::string selector_op(const ConvShapes& shapes);

// The global default strategy, for every selector and thread (every op: a
// strategy that cannot take a direction falls back, logged once per shape). Unless set or
// cleared in code first, NETCL_CONV_STRATEGY (a Kernel name) sets it when first
// needed; a value that names no strategy makes default_conv_strategy() and so
// every select() throw netcl::Error listing the valid names (logged once), until
// set or cleared in code.
void set_default_conv_strategy(Kernel kernel);
void clear_default_conv_strategy();
std::optional<Kernel> default_conv_strategy();
// Forget set/clear and read NETCL_CONV_STRATEGY again on next use (tests, tools).
void reload_default_conv_strategy_from_environment();

// Moves on every change that can alter a plan: a rule registered or removed on
// any selector, the default strategy set, cleared or reloaded. A Conv2d
// re-plans a shape it has kept when this has moved since it planned it, so a
// rule or default set after a layer's first forward reaches its next one.
std::uint64_t selection_generation();

}  // namespace netcl
