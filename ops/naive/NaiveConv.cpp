#include "ops/naive/NaiveConv.hpp"

#include "ops/internal/GradientSums.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "CONV2D_NAIVE";
}  // namespace

NaiveConv::NaiveConv(std::shared_ptr<Context> context, const ConvShapes& shapes)
    : context_(std::move(context)), shapes_(shapes), config_(naive_config(shapes)) {
    const ProgramSpec spec = config_.program();
    const cl::Program program = context_->programs().get_source(spec.label, spec.source, spec.options);
    kernel_ = internal::make_kernel(program, config_.kernel_name());
    if (shapes_.direction == ConvDirection::BACKWARD_WEIGHTS && shapes_.bias) {
        bias_kernel_ = internal::make_kernel(program, internal::kBiasGradientKernel);
    }
}

void NaiveConv::set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain&) {
    internal::check_weights(kName, shapes_, weights, bias);
    weights_ = weights;
    bias_ = shapes_.bias ? *bias : Tensor{};
    has_weights_ = true;
}

void NaiveConv::enqueue(const Tensor& x, const Tensor& y, const Workspace&, internal::EventChain& chain) {
    NETCL_REQUIRE(shapes_.direction == ConvDirection::FORWARD, "CONV2D_NAIVE: built for " +
                      to_string(shapes_.direction) + ", asked to run forward");
    NETCL_REQUIRE(has_weights_, "CONV2D_NAIVE: enqueue before set_weights; expected weights first");
    internal::check_io(kName, shapes_, x, y);
    const ConvShapes& s = shapes_;
    // Without a bias the kernel never reads its bias argument; bind the weights there.
    const Tensor& bias = s.bias ? bias_ : weights_;
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    internal::set_args(kernel_, "conv2d_naive", x.buffer(), internal::offset_of(x), weights_.buffer(),
                       internal::offset_of(weights_), bias.buffer(), internal::offset_of(bias), y.buffer(),
                       internal::offset_of(y), i(s.bias ? 1 : 0), i(s.C), i(s.H), i(s.W), i(s.K), i(s.P()), i(s.Q()),
                       i(s.R), i(s.S), i(s.stride_h), i(s.stride_w), i(s.pad_top), i(s.pad_left), i(s.dilation_h),
                       i(s.dilation_w), i(s.groups), i(s.D), i(s.T), i(s.O()), i(s.stride_d), i(s.pad_front),
                       i(s.dilation_d));
    internal::launch(context_->queue(), kernel_, "conv2d_naive", config_.global(s), config_.local(), chain);
}

void NaiveConv::enqueue_backward_data(const Tensor& dy, const Tensor& dx, const Workspace&,
                                      internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    NETCL_REQUIRE(s.direction == ConvDirection::BACKWARD_DATA,
                  "CONV2D_NAIVE: built for " + to_string(s.direction) + ", asked to run backward_data");
    NETCL_REQUIRE(has_weights_, "CONV2D_NAIVE: backward data before set_weights; expected weights first");
    internal::check_io(kName, s, dx, dy);
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    internal::set_args(kernel_, config_.kernel_name(), dy.buffer(), internal::offset_of(dy), weights_.buffer(),
                       internal::offset_of(weights_), dx.buffer(), internal::offset_of(dx), i(s.C), i(s.H), i(s.W),
                       i(s.K), i(s.P()), i(s.Q()), i(s.R), i(s.S), i(s.stride_h), i(s.stride_w), i(s.pad_top),
                       i(s.pad_left), i(s.dilation_h), i(s.dilation_w), i(s.groups), i(s.D), i(s.T), i(s.O()),
                       i(s.stride_d), i(s.pad_front), i(s.dilation_d));
    internal::launch(context_->queue(), kernel_, config_.kernel_name(), config_.global(s), config_.local(), chain);
}

void NaiveConv::enqueue_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& dw, const Tensor* db,
                                         float beta, const Workspace&, internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    NETCL_REQUIRE(s.direction == ConvDirection::BACKWARD_WEIGHTS,
                  "CONV2D_NAIVE: built for " + to_string(s.direction) + ", asked to run backward_weights");
    internal::check_io(kName, s, x, dy);
    internal::check_weights(kName, s, dw, db);
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    internal::set_args(kernel_, config_.kernel_name(), x.buffer(), internal::offset_of(x), dy.buffer(),
                       internal::offset_of(dy), dw.buffer(), internal::offset_of(dw), beta, i(s.N), i(s.C), i(s.H),
                       i(s.W), i(s.K), i(s.P()), i(s.Q()), i(s.R), i(s.S), i(s.stride_h), i(s.stride_w),
                       i(s.pad_top), i(s.pad_left), i(s.dilation_h), i(s.dilation_w), i(s.groups), i(s.D), i(s.T),
                       i(s.O()), i(s.stride_d), i(s.pad_front), i(s.dilation_d));
    internal::launch(context_->queue(), kernel_, config_.kernel_name(), config_.global(s), config_.local(), chain);
    if (s.bias) internal::enqueue_bias_gradient(context_->queue(), bias_kernel_, s, dy, *db, beta, chain);
}

}  // namespace netcl
