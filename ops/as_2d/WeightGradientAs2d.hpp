#pragma once
// Internal: a 3-D weight gradient as the 2-D one it equals (DepthTaps.hpp):
// dy's slices and x's depth taps copied, then the 2-D strategy writes the
// caller's dw (read as K x (C·T)/groups x R x S) and db. An implementation
// opts in through ProblemKinds::weight_gradient_3d_as_2d.
#include <memory>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/as_2d/DepthTaps.hpp"

namespace netcl {

class WeightGradientAs2d final : public ConvStrategy {
public:
    // `flat`: a strategy created for depth_taps_problem(shapes).
    WeightGradientAs2d(std::shared_ptr<Context> context, const ConvShapes& shapes, std::unique_ptr<ConvStrategy> flat);

    void set_weights(const Tensor&, const Tensor*, internal::EventChain&) override {}  // reads no weights
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;
    void enqueue_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& dw, const Tensor* db, float beta,
                                  const Workspace& workspace, internal::EventChain& chain) override;

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    std::unique_ptr<ConvStrategy> flat_;
    DepthTaps taps_;
};

}  // namespace netcl
