#pragma once
// Internal: a 3-D weight gradient as one 2-D weight gradient.
//
// dw[k][c][t][r][s] sums dy[n][k][o][p][q] · x[n][c][o·stride_d + t·dilation_d
// - pad_front][..][..] over n, o, p, q. Take each depth slice (n, o) as an
// image and x's T depth taps under it as channels c·T + t: the sum is the 2-D
// weight gradient of those N·O images of C·T channels, whose K x (C·T)/groups
// x R x S is the 3-D K x C/groups x T x R x S, element for element, and whose
// bias gradient sums dy over the same n, o, p, q. So every 2-D weight-gradient
// implementation takes 3-D layers at every stride, padding, dilation and
// grouping, with dw, beta and db as it treats them in 2-D; the price is the
// copies (kernels_cl/depth_taps.cl): x's depth taps (T times x's planes, at
// depth stride 1) and dy's slices, made before each run. An implementation
// opts in through ProblemKinds::weight_gradient_3d_as_2d.
#include <cstddef>
#include <memory>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/DataType.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/ProgramSpec.hpp"

namespace netcl {

// The 2-D problem a 3-D weight gradient equals (above).
ConvShapes weight_gradient_as_2d_problem(const ConvShapes& shapes);
// The copies of x's depth taps and of dy's slices, before the 2-D problem's own workspace.
std::size_t weight_gradient_as_2d_scratch_bytes(const ConvShapes& shapes);
// kernels_cl/depth_taps.cl, in the layer's storage type.
ProgramSpec depth_taps_program(DataType type);

class WeightGradientAs2d final : public ConvStrategy {
public:
    // `flat`: a strategy created for weight_gradient_as_2d_problem(shapes).
    WeightGradientAs2d(std::shared_ptr<Context> context, const ConvShapes& shapes, std::unique_ptr<ConvStrategy> flat);

    void set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) override;
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;
    void enqueue_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& dw, const Tensor* db, float beta,
                                  const Workspace& workspace, internal::EventChain& chain) override;

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_, flat_shapes_;
    std::unique_ptr<ConvStrategy> flat_;
    cl::Kernel gather_;
};

}  // namespace netcl
