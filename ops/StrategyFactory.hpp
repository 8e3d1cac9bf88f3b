#pragma once
#include <memory>

#include "../runtime/Context.hpp"
#include "../runtime/DeviceProfile.hpp"
#include "../selector/Plan.hpp"
#include "ConvShapes.hpp"
#include "ConvStrategy.hpp"

namespace netcl {

// Makes the strategy a plan names, for one shape. Throws netcl::Error naming
// the strategy, the shape and the reason when it cannot take the shape
// (why_not() against the context's profile).
std::unique_ptr<ConvStrategy> make_strategy(std::shared_ptr<Context> context, const Plan& plan,
                                            const ConvShapes& shapes);

// The same, checked against `profile` instead (Conv2d passes the context's
// profile with its own workspace limit applied).
std::unique_ptr<ConvStrategy> make_strategy(std::shared_ptr<Context> context, const Plan& plan,
                                            const ConvShapes& shapes, const DeviceProfile& profile);

}  // namespace netcl
