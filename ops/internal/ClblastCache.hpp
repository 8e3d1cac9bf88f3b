#pragma once
// Internal: CLBlast's program cache and netcl's Contexts.
//
// CLBlast keeps every program it builds in a process-wide cache keyed by
// cl_context, and a cached program holds its context: a Context that ran
// IM2COL would never be freed (one cl_context and its programs per Context
// made and dropped; found by tests/test_reliability_faults.cpp, which counts
// live programs after each Context goes). CLBlast 1.5 can only clear its
// whole cache, so the last Context of a cl_context that used CLBlast clears
// it when it goes; other live contexts then rebuild their CLBlast kernels at
// their next call (a few seconds on PoCL, once).
#include "netcl/Context.hpp"

namespace netcl::internal {

// Call before the first CLBlast call on `context` (cheap after the first).
void clblast_will_use(Context& context);

}  // namespace netcl::internal
