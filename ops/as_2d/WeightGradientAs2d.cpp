#include "ops/as_2d/WeightGradientAs2d.hpp"

#include "netcl/Error.hpp"
#include "ops/internal/KernelLaunch.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "3-D weight gradient as 2-D";
}  // namespace

WeightGradientAs2d::WeightGradientAs2d(std::shared_ptr<Context> context, const ConvShapes& shapes,
                                       std::unique_ptr<ConvStrategy> flat)
    : context_(context), shapes_(shapes), flat_(std::move(flat)), taps_(std::move(context), shapes) {}

void WeightGradientAs2d::enqueue(const Tensor&, const Tensor&, const Workspace&, internal::EventChain&) {
    throw Error("internal: a weight-gradient strategy was asked to run forward");
}

void WeightGradientAs2d::enqueue_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& dw,
                                                  const Tensor* db, float beta, const Workspace& workspace,
                                                  internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    internal::check_io(kName, s, x, dy);
    internal::check_weights(kName, s, dw, db);
    taps_.check(kName, workspace);
    taps_.gather_taps(x, workspace, chain);
    taps_.gather_slices(dy, workspace, chain);
    // K x C/groups x T x R x S is K x (C·T)/groups x R x S: the caller's dw, read as the 2-D one.
    const Tensor flat_dw =
        Tensor::view(context_, dw.buffer()(), dw.offset_bytes(), depth_taps_problem(s).weight_shape(), s.dtype);
    flat_->enqueue_backward_weights(taps_.taps(workspace), taps_.slices(workspace), flat_dw, db, beta,
                                    taps_.rest(workspace), chain);
}

}  // namespace netcl
