#include "ops/as_2d/BackwardDataAs2d.hpp"

#include "netcl/Error.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "ops/internal/Widen.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "3-D backward data as 2-D";
}  // namespace

BackwardDataAs2d::BackwardDataAs2d(std::shared_ptr<Context> context, const ConvShapes& shapes,
                                   std::unique_ptr<ConvStrategy> flat)
    : context_(context), shapes_(shapes), flat_(std::move(flat)), taps_(context, shapes) {
    if (shapes_.dtype != DataType::FLOAT32) {
        const ProgramSpec widen = internal::widen_program();
        widen_ = internal::make_kernel(context_->programs().get_source(widen.label, widen.source, widen.options),
                                       "widen_to_float");
    }
}

void BackwardDataAs2d::set_weights(const Tensor& weights, const Tensor*, internal::EventChain& chain) {
    ConvShapes without_bias = shapes_;
    without_bias.bias = false;  // dgrad reads no bias
    internal::check_weights(kName, without_bias, weights, nullptr);
    // The 2-D problem runs in float32 (DepthTaps.hpp): a half layer's filters widened, a copy of their own.
    const Tensor& source = shapes_.dtype == DataType::FLOAT32
                               ? weights
                               : (widened_ = internal::widened_copy(context_, widen_, weights, chain));
    const Tensor flat = Tensor::view(context_, source.buffer()(), source.offset_bytes(),
                                     depth_taps_problem(shapes_).weight_shape(), DataType::FLOAT32);
    flat_->set_weights(flat, nullptr, chain);
}

void BackwardDataAs2d::enqueue(const Tensor&, const Tensor&, const Workspace&, internal::EventChain&) {
    throw Error("internal: a backward-data strategy was asked to run forward");
}

void BackwardDataAs2d::enqueue_backward_data(const Tensor& dy, const Tensor& dx, const Workspace& workspace,
                                             internal::EventChain& chain) {
    internal::check_io(kName, shapes_, dx, dy);
    taps_.check(kName, workspace);
    taps_.gather_slices(dy, workspace, chain);
    flat_->enqueue_backward_data(taps_.slices(workspace), taps_.taps(workspace), taps_.rest(workspace), chain);
    taps_.sum_taps(workspace, dx, chain);
}

}  // namespace netcl
