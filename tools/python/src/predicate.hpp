#pragma once
// A Python callable as a C++ selector predicate. The selector may call it
// from any thread (a forward on a C++ thread, or a Python thread that has
// released the GIL), so each call takes the GIL for as long as Python runs and
// no longer. Whatever goes wrong in Python (an exception, a result that is not
// a bool) becomes a netcl::Error thrown out of the call: the selector logs it,
// records it in explain(), and passes the rule over, as for a C++ predicate.
#include "bindings.hpp"
#include "netcl/KernelSelector.hpp"

namespace netcl::python {

// Wraps `callable` (the GIL is held here). Copies of the result share one
// reference to it, dropped under the GIL when the last copy goes.
ConvPredicate make_predicate(nb::handle callable);

// The category of the warning each failed call also issues (netcl.PredicateWarning).
void set_predicate_warning(nb::handle type);

// Once the interpreter is shutting down no predicate enters Python again:
// a call reports that instead, and a dropped callable is left to the OS.
void mark_python_finalizing();

}  // namespace netcl::python
