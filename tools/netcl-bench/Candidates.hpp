#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ops/ConvShapes.hpp"
#include "ops/Kernel.hpp"
#include "runtime/DeviceProfile.hpp"
#include "selector/Plan.hpp"

namespace netcl::bench {

// One thing netcl-bench times on a layer: the selector's own plan, one
// strategy/variant forced through Conv2dOptions, or CLBlast's Convgemm.
struct Candidate {
    enum class Kind { Selector, Strategy, Clblast };
    Kind kind = Kind::Strategy;
    std::string id;  // stable name: "selector", "naive", "im2col", "wino-f4-fused-global", "clblast"
    Kernel kernel = Kernel::CONV2D_NAIVE;
    Variant variant;
};

// Every candidate in table order: selector, naive, im2col, the eight Winograd
// variants (tile x fused/low-local-memory x global/constant weights), clblast.
const std::vector<Candidate>& all_candidates();

// --strategies: a comma list of ids or prefixes of ids ("wino" = every
// Winograd variant, "wino-f2" = the F(2x2,3x3) ones), the Kernel names
// (CONV2D_NAIVE, IM2COL, CONV2D_WINOGRAD) or "all". Case-insensitive.
// Throws UsageError for a name that matches nothing, listing the valid ones.
std::vector<Candidate> parse_strategies(const std::string& text);

// The id of the Strategy candidate that runs `kernel` with `variant`
// ("wino-f4-fused-global"): names the selector's choice in the table.
std::string candidate_id(Kernel kernel, const Variant& variant);

// Why `candidate` cannot run `shapes` on a device with `profile`; nothing when it can.
std::optional<std::string> candidate_why_not(const Candidate& candidate, const ConvShapes& shapes,
                                             const DeviceProfile& profile);

}  // namespace netcl::bench
