#include "ops/ConvStrategy.hpp"

#include "netcl/Error.hpp"

namespace netcl {

// Reached only if an implementation's problem_kinds() names a direction its
// strategy does not run: an internal error, reported as one.
void ConvStrategy::enqueue_backward_data(const Tensor&, const Tensor&, const Workspace&, internal::EventChain&) {
    throw Error("internal: this strategy does not run backward data, though its implementation took the problem");
}

void ConvStrategy::enqueue_backward_weights(const Tensor&, const Tensor&, const Tensor&, const Tensor*, float,
                                            const Workspace&, internal::EventChain&) {
    throw Error("internal: this strategy does not run backward weights, though its implementation took the problem");
}

}  // namespace netcl
