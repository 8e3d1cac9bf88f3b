#include "ops/as_forward/BackwardDataAsForward.hpp"

#include "ops/internal/KernelLaunch.hpp"
#include "runtime/EmbeddedSources.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "backward data as forward";
constexpr const char* kKernel = "rotate_filters";
constexpr std::size_t kLocal = 64;
}  // namespace

std::optional<std::string> backward_data_as_forward_why_not(const ConvShapes& s) {
    if (s.stride_h != 1 || s.stride_w != 1) {
        return "backward data runs as a forward convolution at stride 1 only; this layer has stride " +
               std::to_string(s.stride_h) + "x" + std::to_string(s.stride_w);
    }
    const std::int64_t reach_h = s.dilation_h * (s.R - 1), reach_w = s.dilation_w * (s.S - 1);
    if (s.pad_top > reach_h || s.pad_bottom > reach_h || s.pad_left > reach_w || s.pad_right > reach_w) {
        return "backward data as a forward convolution needs every padding within the dilated filter's reach (" +
               std::to_string(reach_h) + " rows, " + std::to_string(reach_w) + " columns); this layer pads " +
               std::to_string(s.pad_top) + "," + std::to_string(s.pad_left) + "," + std::to_string(s.pad_bottom) +
               "," + std::to_string(s.pad_right);
    }
    return std::nullopt;
}

ConvShapes backward_data_as_forward(const ConvShapes& s) {
    ConvShapes f = s;
    f.direction = ConvDirection::FORWARD;
    f.C = s.K;
    f.H = s.P();
    f.W = s.Q();
    f.K = s.C;
    f.bias = false;
    // An output row h of dx gathers dy rows h + pad_top - r·dil: the rotated
    // filter reads dy padded by reach - pad on each side.
    const std::int64_t reach_h = s.dilation_h * (s.R - 1), reach_w = s.dilation_w * (s.S - 1);
    f.set_padding(reach_h - s.pad_top, reach_w - s.pad_left, reach_h - s.pad_bottom, reach_w - s.pad_right);
    return f;
}

ProgramSpec filter_rotation_program() {
    return {kKernel, embedded_source(kKernel), "", {{kKernel, {kLocal, 1, 1}}}};
}

BackwardDataAsForward::BackwardDataAsForward(std::shared_ptr<Context> context, const ConvShapes& shapes,
                                             std::unique_ptr<ConvStrategy> forward)
    : context_(std::move(context)), shapes_(shapes), forward_(std::move(forward)) {
    const ProgramSpec spec = filter_rotation_program();
    rotate_ = internal::make_kernel(context_->programs().get_source(spec.label, spec.source, spec.options), kKernel);
}

void BackwardDataAsForward::set_weights(const Tensor& weights, const Tensor*, internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    ConvShapes without_bias = s;
    without_bias.bias = false;  // dgrad reads no bias
    internal::check_weights(kName, without_bias, weights, nullptr);
    // Made once: a later set_weights rewrites it after the layer's previous
    // run of this shape (Conv2d orders it so).
    if (!rotated_.defined()) rotated_ = Tensor::empty(context_, {s.C, s.K / s.groups, s.R, s.S});
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    internal::set_args(rotate_, kKernel, weights.buffer(), internal::offset_of(weights), rotated_.buffer(), i(s.K),
                       i(s.C / s.groups), i(s.R), i(s.S), i(s.groups));
    internal::launch(context_->queue(), rotate_, kKernel, cl::NDRange(static_cast<std::size_t>(s.weight_numel())),
                     cl::NDRange(kLocal), chain);
    forward_->set_weights(rotated_, nullptr, chain);
}

void BackwardDataAsForward::enqueue(const Tensor&, const Tensor&, const Workspace&, internal::EventChain&) {
    throw Error("internal: a backward-data strategy was asked to run forward");
}

void BackwardDataAsForward::enqueue_backward_data(const Tensor& dy, const Tensor& dx, const Workspace& workspace,
                                                  internal::EventChain& chain) {
    internal::check_io(kName, shapes_, dx, dy);
    forward_->enqueue(dy, dx, workspace, chain);  // the forward problem's input is dy, its output dx
}

}  // namespace netcl
