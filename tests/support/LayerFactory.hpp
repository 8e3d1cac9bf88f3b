#pragma once
// The layer that computes a problem, at its rank: a Conv2d, or a Conv3d for
// a rank-3 problem, so tests and tools run either through one code path.
#include <cstddef>
#include <memory>
#include <optional>

#include "netcl/ConvLayer.hpp"

namespace netcl {

// What a caller sets beyond the problem's own shapes (the options' fields of the same names).
struct LayerOverrides {
    std::optional<Kernel> strategy;
    std::optional<Variant> variant;
    std::optional<std::size_t> workspace_limit_bytes;
    std::optional<double> max_error_factor;
    KernelSelector* selector = nullptr;
};

std::unique_ptr<ConvLayer> make_conv_layer(const std::shared_ptr<Context>& context, const ConvShapes& shapes,
                                           const LayerOverrides& overrides = {});

}  // namespace netcl
