#include "netcl/KernelSelector.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <shared_mutex>

#include "ops/Implementations.hpp"
#include "netcl/Error.hpp"
#include "runtime/Log.hpp"
#include "selector/BuiltinRules.hpp"
#include "selector/ProfileStore.hpp"
#include "selector/SelectionGeneration.hpp"
#include "selector/VariantChoice.hpp"

namespace netcl {

namespace {

void require_known_op(const std::string& op) {
    const auto& ops = selector_ops();
    if (std::find(ops.begin(), ops.end(), op) != ops.end()) return;
    std::string known;
    for (const auto& name : ops) known += (known.empty() ? "" : ", ") + name;
    throw Error("unknown op '" + op + "'; the selector decides for: " + known);
}

// The op a caller names must be the problem's: a rule for backward data is
// never asked about a forward problem, and a caller that mixes them is told.
void require_op_of(const std::string& op, const ConvShapes& shapes) {
    require_known_op(op);
    if (op != selector_op(shapes)) {
        throw Error("op '" + op + "' does not match the problem " + shapes.str() + "; expected '" +
                    selector_op(shapes) + "' (its direction and spatial rank)");
    }
}

struct Rule {
    KernelSelector::RuleHandle handle = 0;
    std::string op;
    ConvPredicate predicate;
    Kernel kernel = Kernel::CONV2D_NAIVE;
    int priority = 0;
    std::optional<Variant> variant;
    mutable std::atomic<bool> error_logged{false};  // a throwing predicate is logged once, not per call
};

// The plan of an accepted variant: what runs, its configuration and why.
Plan accepted_plan(Kernel kernel, const Variant& variant, const ConvShapes& s, const DeviceProfile& profile,
                   std::string reason) {
    const ConvImplementation& impl = implementation_of(variant);
    return Plan{kernel, variant, impl.name(), impl.config(variant, s, profile), std::move(reason), impl.error_factor(variant)};
}

// A plan for `kernel` on this shape: the given variant if it fits, else the
// best one that does; or the reason none can.
// A named variant beyond the profile's accuracy bound is passed over too
// (a rule's or a tuned record's), except under a strict override.
Candidate plan_for(std::string source, Kernel kernel, const std::optional<Variant>& variant, const ConvShapes& s,
                   const DeviceProfile& profile, std::string why, bool strict = false) {
    Candidate c{std::move(source), Plan{kernel, {}, {}, {}, {}}, false, {}};
    Variant chosen;
    if (variant) {
        if (const auto reason = why_not(*variant, s, profile)) {
            c.reason = to_string(kernel) + " " + variant->id + " cannot take this shape: " + *reason;
            return c;
        }
        if (const auto reason = strict ? std::nullopt : beyond_error_bound(*variant, profile)) {
            c.reason = to_string(kernel) + " " + variant->id + " is passed over: " + *reason;
            return c;
        }
        chosen = *variant;
    } else {
        const VariantChoice choice = best_variant(kernel, s, profile);
        if (!choice.variant) {
            c.reason = to_string(kernel) + " cannot take this shape: " + choice.why_not;
            return c;
        }
        chosen = *choice.variant;
        if (!choice.why_not.empty()) why += " (variants passed over: " + choice.why_not + ")";
    }
    c.accepted = true;
    c.reason = why;
    c.plan = accepted_plan(kernel, chosen, s, profile, c.source + ": " + why);
    return c;
}

}  // namespace

struct KernelSelector::State {
    mutable std::shared_mutex mutex;
    std::vector<std::shared_ptr<const Rule>> rules;
    RuleHandle next_handle = 1;
    mutable std::mutex warned_mutex;
    mutable std::set<std::string> warned;  // shapes whose default-strategy fallback was already logged
};

KernelSelector::KernelSelector() : state_(std::make_unique<State>()) {}
KernelSelector::~KernelSelector() = default;

KernelSelector& KernelSelector::global() {
    static KernelSelector selector;
    return selector;
}

KernelSelector::RuleHandle KernelSelector::register_rule(const std::string& op, ConvPredicate predicate, Kernel kernel,
                                                         int priority, std::optional<Variant> variant) {
    require_known_op(op);
    NETCL_REQUIRE(static_cast<bool>(predicate), "register_rule needs a predicate; got an empty function");
    to_string(kernel);  // throws for a value outside the enum
    if (variant && implementation_of(*variant).kernel() != kernel) {
        throw Error("register_rule: variant " + variant->id + " runs under " +
                    to_string(implementation_of(*variant).kernel()) + ", not " + to_string(kernel));
    }
    auto rule = std::make_shared<Rule>();
    rule->op = op;
    rule->predicate = std::move(predicate);
    rule->kernel = kernel;
    rule->priority = priority;
    rule->variant = variant;
    std::unique_lock lock(state_->mutex);
    rule->handle = state_->next_handle++;
    state_->rules.push_back(rule);
    note_selection_change();
    return rule->handle;
}

bool KernelSelector::remove_rule(RuleHandle handle) {
    std::unique_lock lock(state_->mutex);
    auto& rules = state_->rules;
    const auto it = std::find_if(rules.begin(), rules.end(), [&](const auto& r) { return r->handle == handle; });
    if (it == rules.end()) return false;
    rules.erase(it);
    note_selection_change();
    return true;
}

std::size_t KernelSelector::rule_count() const {
    std::shared_lock lock(state_->mutex);
    return state_->rules.size();
}

Plan KernelSelector::select(const std::string& op, const ConvShapes& shapes, const DeviceProfile& profile) const {
    return explain(op, shapes, profile).plan;
}

Decision KernelSelector::explain(const std::string& op, const ConvShapes& shapes, const DeviceProfile& device) const {
    shapes.validate();
    require_op_of(op, shapes);
    // Read first, so a bad NETCL_CONV_STRATEGY is an error even where a framework rule decides.
    const std::optional<Kernel> default_kernel = default_conv_strategy();
    const auto stored = ProfileStore::global().lookup(device);
    const DeviceProfile profile = with_stored_tuned(device, *stored);  // a no-op on a resolved profile
    Decision decision;
    decision.profile_sources = stored->sources;
    decision.problem = shapes.str();
    auto& candidates = decision.candidates;
    const auto done = [&]() -> bool {
        if (candidates.empty() || !candidates.back().accepted) return false;
        decision.plan = candidates.back().plan;
        return true;
    };

    // 1. Framework rules. Copied under the lock, run outside it, so a
    // predicate may itself register or remove rules.
    std::vector<std::shared_ptr<const Rule>> rules;
    {
        std::shared_lock lock(state_->mutex);
        rules = state_->rules;
    }
    std::stable_sort(rules.begin(), rules.end(), [](const auto& a, const auto& b) {
        return a->priority != b->priority ? a->priority > b->priority : a->handle > b->handle;
    });
    for (const auto& rule : rules) {
        if (rule->op != op) continue;  // another direction's or rank's rule
        const std::string source =
            "rule #" + std::to_string(rule->handle) + " (priority " + std::to_string(rule->priority) + ")";
        bool holds = false;
        std::string error;
        try {
            holds = rule->predicate(shapes, profile);
        } catch (const std::exception& e) {
            error = e.what();
        } catch (...) {
            error = "an exception that is not a std::exception";
        }
        if (!error.empty()) {
            if (!rule->error_logged.exchange(true)) {
                log().error("selector {} predicate threw ({}); the rule is skipped", source, error);
            }
            candidates.push_back({source, Plan{rule->kernel, rule->variant.value_or(Variant{}), {}, {}, {}}, false, "predicate threw: " + error});
            continue;
        }
        if (!holds) {
            candidates.push_back({source, Plan{rule->kernel, rule->variant.value_or(Variant{}), {}, {}, {}}, false, "predicate does not hold"});
            continue;
        }
        candidates.push_back(plan_for(source, rule->kernel, rule->variant, shapes, profile, "predicate holds"));
        if (done()) break;
    }

    // 2. The global default strategy.
    if (!done()) {
        if (const auto& kernel = default_kernel) {
            candidates.push_back(plan_for("default strategy", *kernel, std::nullopt, shapes, profile,
                                          "set by set_default_conv_strategy or NETCL_CONV_STRATEGY"));
            if (!candidates.back().accepted) {
                const std::string key = to_string(*kernel) + " " + record_key(shapes);
                std::lock_guard lock(state_->warned_mutex);
                if (state_->warned.insert(key).second) {
                    log().warn("default strategy {} cannot take {} ({}); falling back to the next choice",
                               to_string(*kernel), shapes.str(), candidates.back().reason);
                }
            }
        }
    }

    // 3. A tuned record for this device and shape (the find-database).
    if (!done()) {
        if (const auto it = stored->records.find(record_key(shapes)); it != stored->records.end()) {
            const TunedRecord& r = it->second;
            candidates.push_back(plan_for("tuned record", r.kernel, r.variant.empty() ? std::nullopt : std::optional<Variant>(r.variant), shapes, profile,
                                          "fastest when tuned on this device (median " +
                                              std::to_string(r.median_ms) + " ms)"));
        }
    }

    // 4. The built-in rules, the last of which always accepts.
    if (!done()) {
        for (const auto& rule : builtin_rules()) {
            const RuleVerdict verdict = rule->evaluate(shapes, profile);
            Candidate c{"built-in " + rule->name(), verdict.plan, verdict.accepted,
                        verdict.accepted ? verdict.plan.reason : verdict.reason};
            if (c.accepted) {
                c.plan = accepted_plan(verdict.plan.kernel, verdict.plan.variant, shapes, profile,
                                       c.source + ": " + verdict.plan.reason);
            }
            candidates.push_back(std::move(c));
            if (done()) break;
        }
    }

    // The direct kernel's rule takes every 2-D float32 problem; a problem no
    // implementation takes (a rank or type none declares yet) is an error, not an empty plan.
    if (candidates.empty() || !candidates.back().accepted) {
        std::string reasons;
        for (const auto& c : candidates) reasons += "; " + c.source + ": " + c.reason;
        throw Error("no implementation takes " + shapes.str() + " (op '" + op + "')" + reasons);
    }

    if (log().should_log(spdlog::level::debug)) {
        for (const auto& c : candidates) {
            if (!c.accepted) log().debug("selector {}: rejected {}: {}", shapes.str(), c.source, c.reason);
        }
        log().debug("selector {}: {}", shapes.str(), decision.plan.str());
    }
    return decision;
}

Plan KernelSelector::select_strategy(const std::string& op, Kernel kernel, const std::optional<Variant>& variant,
                                     const ConvShapes& shapes, const DeviceProfile& device) const {
    shapes.validate();
    require_op_of(op, shapes);
    to_string(kernel);  // throws for a value outside the enum
    if (variant && implementation_of(*variant).kernel() != kernel) {
        throw Error("strict override: variant " + variant->id + " runs under " +
                    to_string(implementation_of(*variant).kernel()) + ", not " + to_string(kernel));
    }
    const DeviceProfile profile = resolve_profile(device);
    const Candidate c = plan_for("strict override", kernel, variant, shapes, profile, "strict override", /*strict=*/true);
    if (!c.accepted) throw Error("strict override (op " + op + "): " + c.reason + " (" + shapes.str() + ")");
    Plan plan = c.plan;
    plan.reason = "strict override";
    return plan;
}

const std::vector<std::string>& selector_ops() {
    static const std::vector<std::string> ops = [] {
        std::vector<std::string> list;
        for (const char* rank : {"conv2d", "conv3d"}) {
            for (const ConvDirection d : all_conv_directions()) {
                list.push_back(std::string(rank) + (d == ConvDirection::FORWARD ? "" : "_" + to_string(d)));
            }
        }
        return list;
    }();
    return ops;
}

std::string selector_op(const ConvShapes& shapes) {
    const std::string rank = shapes.spatial_rank == 3 ? "conv3d" : "conv2d";
    return shapes.direction == ConvDirection::FORWARD ? rank : rank + "_" + to_string(shapes.direction);
}

DeviceProfile KernelSelector::resolve_profile(const DeviceProfile& device) {
    return with_stored_tuned(device, *ProfileStore::global().lookup(device));
}

std::string Decision::str() const {
    std::string text = problem.empty() ? "" : "problem: " + problem + "\n";
    if (!profile_sources.empty()) {
        text += "profiles layered:";
        for (const auto& s : profile_sources) text += " " + s;
        text += "\n";
    }
    for (const auto& c : candidates) {
        // A rejected built-in rule proposed nothing; every other candidate names its strategy.
        const bool proposed = c.accepted || c.source.rfind("built-in", 0) != 0;
        text += std::string(c.accepted ? "  take   " : "  reject ") + c.source;
        if (proposed) text += " -> " + to_string(c.plan.kernel);
        if (c.accepted) text += " " + c.plan.variant.id + " [" + c.plan.config + "]";
        text += ": " + c.reason + "\n";
    }
    text += "plan: " + plan.str() + "\n";
    return text;
}

}  // namespace netcl
