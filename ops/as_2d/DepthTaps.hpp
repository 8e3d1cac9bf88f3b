#pragma once
// Internal: a 3-D layer's gradients as 2-D ones, through its depth taps.
//
// dw[k][c][t][r][s] sums dy[n][k][o][p][q] · x[n][c][o·stride_d + t·dilation_d
// - pad_front][..][..] over n, o, p, q. Take each depth slice (n, o) as an
// image and x's T depth taps under it as channels c·T + t: that is the 2-D
// weight gradient of N·O images of C·T channels, whose K x (C·T)/groups x R x
// S is the 3-D K x C/groups x T x R x S element for element, and whose bias
// gradient sums dy over the same n, o, p, q (WeightGradientAs2d).
//
// Backward data is that map's adjoint: the 2-D backward data of the same
// problem (dy's slices as images, the 3-D filters read as K x (C·T)/groups x
// R x S in place) gives every slice's contribution to each depth tap, and dx
// at depth d sums the taps t whose slice o = (d + pad_front - t·dilation_d) /
// stride_d is whole (BackwardDataAs2d). So every stride, padding, dilation
// and grouping runs on the 2-D implementations.
//
// The scratch (kernels_cl/depth_taps.cl), in the workspace before the 2-D
// problem's own, each run: a copy of dy's slices, and T / stride_d times x's
// planes, the weight gradient's copy of x's taps or backward data's parts
// (the 2-D problem's dx, which the sum reads); in the 2-D problem's type,
// which for backward data is float32 (a half layer's dx rounded once, from
// the sum of its taps' parts).
#include <cstddef>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/DataType.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/ProgramSpec.hpp"

namespace netcl {

// The 2-D problem, in the 3-D one's direction, that a 3-D gradient runs as
// (backward data's in float32 whatever the layer's type).
ConvShapes depth_taps_problem(const ConvShapes& shapes);
// The copies' bytes: dy's slices, then the taps (the 2-D problem's x or dx).
std::size_t depth_taps_scratch_bytes(const ConvShapes& shapes);
// kernels_cl/depth_taps.cl, in the layer's storage type.
ProgramSpec depth_taps_program(DataType type);

// The kernels and the two copies' places in a workspace, for one 3-D layer.
class DepthTaps {
public:
    DepthTaps(std::shared_ptr<Context> context, const ConvShapes& shapes);

    // Throws netcl::Error unless the workspace holds the copies.
    void check(const char* strategy, const Workspace& workspace) const;
    // The 2-D problem's dy (the slices), and its x or dx (the taps), in the workspace.
    Tensor slices(const Workspace& workspace) const;
    Tensor taps(const Workspace& workspace) const;
    // What follows the copies: the 2-D problem's own workspace.
    Workspace rest(const Workspace& workspace) const;

    void gather_slices(const Tensor& dy, const Workspace& workspace, internal::EventChain& chain);
    void gather_taps(const Tensor& x, const Workspace& workspace, internal::EventChain& chain);
    void sum_taps(const Workspace& workspace, const Tensor& dx, internal::EventChain& chain);

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_, flat_;
    cl::Kernel gather_, sum_;
    const char* gather_name_;
};

}  // namespace netcl
