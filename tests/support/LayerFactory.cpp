#include "tests/support/LayerFactory.hpp"

#include "netcl/Conv2d.hpp"
#include "netcl/Conv3d.hpp"

namespace netcl {

namespace {
// Conv2dOptions and Conv3dOptions share these fields' names and meaning.
template <typename Options>
Options with(Options options, const LayerOverrides& o) {
    options.strategy = o.strategy;
    options.variant = o.variant;
    options.workspace_limit_bytes = o.workspace_limit_bytes;
    options.max_error_factor = o.max_error_factor;
    options.selector = o.selector;
    return options;
}
}  // namespace

std::unique_ptr<ConvLayer> make_conv_layer(const std::shared_ptr<Context>& context, const ConvShapes& shapes,
                                           const LayerOverrides& overrides) {
    if (shapes.spatial_rank == 3) {
        return std::make_unique<Conv3d>(context, with(Conv3dOptions::for_shapes(shapes), overrides));
    }
    return std::make_unique<Conv2d>(context, with(Conv2dOptions::for_shapes(shapes), overrides));
}

}  // namespace netcl
