#pragma once
// Internal: the ordered list of convolution implementations, and what can be
// asked of a variant without knowing which implementation owns it.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/ConvImplementation.hpp"

namespace netcl {

// Every implementation, in a fixed order (ops/Implementations.cpp: one line each).
const std::vector<const ConvImplementation*>& conv_implementations();

// The implementation that lists `variant`; throws netcl::Error naming every
// known variant when none does.
const ConvImplementation& implementation_of(const Variant& variant);
// Every variant of every implementation that runs under `kernel`, in list order.
std::vector<Variant> variants_of(Kernel kernel);
// The same, of the implementations whose problem_kinds() take `direction`.
std::vector<Variant> variants_of(Kernel kernel, ConvDirection direction);

// Why `variant` cannot run `shapes` on `profile`: the layer is invalid, a
// tensor is too large for 32-bit indexing, or the implementation says so.
// Nothing when it can.
std::optional<std::string> why_not(const Variant& variant, const ConvShapes& shapes, const DeviceProfile& profile);
// Why `impl` does not take the problem's direction, spatial rank or data type
// ("direct-rows takes forward; this problem is backward_data"); nothing when it does.
std::optional<std::string> problem_kind_why_not(const ConvImplementation& impl, const ConvShapes& shapes);
// The kernels index with 32-bit ints: a layer with a tensor of 2^31 elements
// or more is refused by every variant (the reason names the sizes).
std::optional<std::string> int_indexing_why_not(const ConvShapes& shapes);

// A plan's strategy: throws netcl::Error naming the variant, the shape and
// the reason when why_not() refuses.
std::unique_ptr<ConvStrategy> create_strategy(std::shared_ptr<Context> context, const Plan& plan,
                                              const ConvShapes& shapes, const DeviceProfile& profile);

}  // namespace netcl
