#pragma once
#include <optional>
#include <string>

#include "../runtime/DeviceProfile.hpp"
#include "../selector/Plan.hpp"
#include "ConvShapes.hpp"
#include "Kernel.hpp"

namespace netcl {

// The first variant of `kernel`, in a fixed order, that why_not() lets run
// `shapes` on `profile`. Used when a strategy is named without a variant
// (Conv2dOptions::strategy alone, a selector rule without a variant). This is
// a capability report, not a choice among speeds: the order is fixed.
// CONV2D_WINOGRAD: F(4x4) fused global weights, F(4x4) low-local-memory,
// F(2x2) fused, F(2x2) low-local-memory. The others have one variant.
// Nothing when no variant can; `reason` (if given) then gets the first
// candidate's reason.
std::optional<Variant> first_runnable_variant(Kernel kernel, const ConvShapes& shapes, const DeviceProfile& profile,
                                              std::string* reason = nullptr);

}  // namespace netcl
