#include "ops/naive/NaiveConv.hpp"

#include "ops/internal/KernelLaunch.hpp"
#include "runtime/Error.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "CONV2D_NAIVE";
constexpr int kColumnBlock = 4;  // QB in conv2d_naive.cl
}  // namespace

NaiveConv::NaiveConv(std::shared_ptr<Context> context, const ConvShapes& shapes)
    : context_(std::move(context)), shapes_(shapes) {
    shapes_.validate();
    // Two builds in all: 4 output channels per work-item, or 1 where a group
    // has fewer than 4 (depthwise), which would otherwise compute idle lanes.
    channel_block_ = shapes_.K / shapes_.groups >= 4 ? 4 : 1;
    const cl::Program program = context_->programs().get("conv2d_naive", "-DKB=" + std::to_string(channel_block_));
    kernel_ = internal::make_kernel(program, "conv2d_naive");
}

void NaiveConv::set_weights(const Tensor& weights, const Tensor* bias) {
    internal::check_weights(kName, shapes_, weights, bias);
    weights_ = weights;
    bias_ = shapes_.bias ? *bias : Tensor{};
    has_weights_ = true;
}

void NaiveConv::enqueue(const Tensor& x, Tensor& y, std::vector<cl::Event>& events) {
    NETCL_REQUIRE(has_weights_, "CONV2D_NAIVE: enqueue before set_weights; expected weights first");
    internal::check_io(kName, shapes_, x, y);
    const ConvShapes& s = shapes_;
    const int P = static_cast<int>(s.P()), Q = static_cast<int>(s.Q());
    // Without a bias the kernel never reads its bias argument; bind the weights there.
    const cl::Buffer& bias = s.bias ? bias_.buffer() : weights_.buffer();
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    internal::set_args(kernel_, "conv2d_naive", x.buffer(), weights_.buffer(), bias, y.buffer(), i(s.bias ? 1 : 0),
                       i(s.C), i(s.H), i(s.W), i(s.K), P, Q, i(s.R), i(s.S), i(s.stride_h), i(s.stride_w), i(s.pad_h),
                       i(s.pad_w), i(s.dilation_h), i(s.dilation_w), i(s.groups));
    const std::int64_t kblocks = (s.K / s.groups + channel_block_ - 1) / channel_block_;
    const cl::NDRange global(static_cast<std::size_t>((Q + kColumnBlock - 1) / kColumnBlock), static_cast<std::size_t>(P),
                             static_cast<std::size_t>(s.N * s.groups * kblocks));
    internal::launch(context_->queue(), kernel_, "conv2d_naive", global, cl::NDRange(8, 4, 1), events);
}

}  // namespace netcl
