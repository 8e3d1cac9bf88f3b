#pragma once
// Internal: a 3-D backward data as the 2-D one of its depth taps
// (DepthTaps.hpp): dy's slices copied, the 2-D strategy (with the 3-D filters
// read as K x (C·T)/groups x R x S, widened to float32 in a half layer)
// writes each slice's taps in float32, and dx at each depth sums the taps
// that reach it. Where the 3-D layer runs as one forward
// convolution in 3-D (stride 1, padded within the filter's reach:
// ops/as_forward/), that is used instead. An implementation opts in through
// ProblemKinds::backward_data_3d_as_2d.
#include <memory>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/as_2d/DepthTaps.hpp"

namespace netcl {

class BackwardDataAs2d final : public ConvStrategy {
public:
    // `flat`: a strategy created for depth_taps_problem(shapes).
    BackwardDataAs2d(std::shared_ptr<Context> context, const ConvShapes& shapes, std::unique_ptr<ConvStrategy> flat);

    // Hands the 2-D strategy the weights read as the 2-D problem's.
    void set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) override;
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;
    void enqueue_backward_data(const Tensor& dy, const Tensor& dx, const Workspace& workspace,
                               internal::EventChain& chain) override;

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    std::unique_ptr<ConvStrategy> flat_;
    DepthTaps taps_;
    cl::Kernel widen_;  // a half layer's filters to float32
    Tensor widened_;
};

}  // namespace netcl
