#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "../runtime/DeviceProfile.hpp"
#include "../selector/Plan.hpp"
#include "ConvShapes.hpp"
#include "Kernel.hpp"

namespace netcl {

// What each strategy (and variant) can take: the facts the selector weighs and
// Conv2d's strict override enforces. Reports only; decides nothing.

// Why `kernel` with `variant` cannot run `shapes` on a device with `profile`;
// nothing when it can.
std::optional<std::string> why_not(Kernel kernel, const Variant& variant, const ConvShapes& shapes,
                                   const DeviceProfile& profile);

// Every strategy's kernels index with 32-bit ints: a layer with a tensor of
// 2^31 elements or more is refused (the reason names the sizes).
std::optional<std::string> int_indexing_why_not(const ConvShapes& shapes);

// Extra device memory the strategy needs for `shapes` (im2col's column buffer,
// Winograd's padded copies), with IM2COL under a limit of at least
// kIm2colPassBytes (ops/im2col/Im2colLayout.hpp).
std::size_t workspace_bytes(Kernel kernel, const Variant& variant, const ConvShapes& shapes);
// The same under `profile`'s limits: IM2COL batches fewer images per pass
// under a small im2col_workspace_limit(). This is what the strategy allocates.
std::size_t workspace_bytes(Kernel kernel, const Variant& variant, const ConvShapes& shapes,
                            const DeviceProfile& profile);

// The IM2COL workspace cap: profile value "im2col_workspace_limit_bytes", else
// a quarter of the device's largest allocation.
std::size_t im2col_workspace_limit(const DeviceProfile& profile);

}  // namespace netcl
