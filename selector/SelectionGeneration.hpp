#pragma once
// The counter behind selection_generation(): bumped by the selector's rule
// registry and by the default strategy, read by Conv2d before reusing a plan.
#include <cstdint>

namespace netcl {

void note_selection_change();

}  // namespace netcl
