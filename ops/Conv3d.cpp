#include "netcl/Conv3d.hpp"

#include "netcl/Error.hpp"

namespace netcl {

namespace {

ConvLayerOptions to_layer_options(const Conv3dOptions& o) {
    ConvLayerOptions l;
    l.name = "Conv3d";
    l.spatial_rank = 3;
    copy_run_options(o, l);
    l.kernel = o.kernel;
    l.stride = o.stride;
    l.dilation = o.dilation;
    l.padding = Padding(o.padding.top, o.padding.left, o.padding.bottom, o.padding.right);
    l.pad_front = o.padding.front;
    l.pad_back = o.padding.back;
    return l;
}

}  // namespace

Conv3dOptions Conv3dOptions::for_shapes(const ConvShapes& s) {
    NETCL_REQUIRE(s.spatial_rank == 3, "Conv3dOptions::for_shapes: " + s.str() + " is a 2-D problem; expected rank 3");
    Conv3dOptions o;
    o.in_channels = s.C;
    o.out_channels = s.K;
    o.kernel = {s.T, s.R, s.S};
    o.stride = {s.stride_d, s.stride_h, s.stride_w};
    o.padding = Padding3d(s.pad_front, s.pad_top, s.pad_left, s.pad_back, s.pad_bottom, s.pad_right);
    o.dilation = {s.dilation_d, s.dilation_h, s.dilation_w};
    o.groups = s.groups;
    o.bias = s.bias;
    o.dtype = s.dtype;
    o.post_ops = s.post_ops;
    return o;
}

Conv3d::Conv3d(std::shared_ptr<Context> context, Conv3dOptions options)
    : ConvLayer(std::move(context), to_layer_options(options)), options_(std::move(options)) {}

}  // namespace netcl
