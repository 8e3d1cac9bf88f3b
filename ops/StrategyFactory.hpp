#pragma once
#include <memory>

#include "../runtime/Context.hpp"
#include "../selector/Plan.hpp"
#include "ConvShapes.hpp"
#include "ConvStrategy.hpp"

namespace netcl {

// Makes the strategy a plan names, for one shape. Throws netcl::Error naming
// the strategy, the shape and the reason when it cannot take the shape.
std::unique_ptr<ConvStrategy> make_strategy(std::shared_ptr<Context> context, const Plan& plan,
                                            const ConvShapes& shapes);

}  // namespace netcl
