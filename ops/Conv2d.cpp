#include "netcl/Conv2d.hpp"

#include "netcl/Error.hpp"

namespace netcl {

namespace {

ConvLayerOptions to_layer_options(const Conv2dOptions& o) {
    ConvLayerOptions l;
    l.name = "Conv2d";
    l.spatial_rank = 2;
    copy_run_options(o, l);
    l.kernel = {1, o.kernel[0], o.kernel[1]};
    l.stride = {1, o.stride[0], o.stride[1]};
    l.dilation = {1, o.dilation[0], o.dilation[1]};
    l.padding = o.padding;
    return l;
}

}  // namespace

Conv2dOptions Conv2dOptions::for_shapes(const ConvShapes& s) {
    NETCL_REQUIRE(s.spatial_rank == 2, "Conv2dOptions::for_shapes: " + s.str() +
                                           " is a 3-D problem; expected rank 2 (Conv3dOptions::for_shapes takes it)");
    Conv2dOptions o;
    o.in_channels = s.C;
    o.out_channels = s.K;
    o.kernel = {s.R, s.S};
    o.stride = {s.stride_h, s.stride_w};
    o.padding = Padding(s.pad_top, s.pad_left, s.pad_bottom, s.pad_right);
    o.dilation = {s.dilation_h, s.dilation_w};
    o.groups = s.groups;
    o.bias = s.bias;
    o.dtype = s.dtype;
    o.post_ops = s.post_ops;
    return o;
}

Conv2d::Conv2d(std::shared_ptr<Context> context, Conv2dOptions options)
    : ConvLayer(std::move(context), to_layer_options(options)), options_(std::move(options)) {}

}  // namespace netcl
