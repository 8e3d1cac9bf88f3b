#include "ops/internal/GradientSums.hpp"

#include "ops/internal/KernelLaunch.hpp"

namespace netcl::internal {

namespace {
constexpr std::size_t kGroup = 64;
}  // namespace

KernelSpec bias_gradient_kernel() { return {kBiasGradientKernel, {1, 1, 1}}; }
KernelSpec sum_partials_kernel() { return {kSumPartialsKernel, {kGroup, 1, 1}}; }

void enqueue_bias_gradient(const cl::CommandQueue& queue, cl::Kernel& kernel, const ConvShapes& s, const Tensor& dy,
                           const Tensor& db, float beta, EventChain& chain) {
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    set_args(kernel, kBiasGradientKernel, dy.buffer(), offset_of(dy), db.buffer(), offset_of(db), beta, i(s.N),
             i(s.K), i(s.O() * s.P() * s.Q()));
    launch(queue, kernel, kBiasGradientKernel, cl::NDRange(static_cast<std::size_t>(s.K)), cl::NDRange(1), chain);
}

void enqueue_sum_partials(const cl::CommandQueue& queue, cl::Kernel& kernel, const cl::Buffer& partials,
                          std::size_t offset_floats, std::int64_t parts, const Tensor& dw, float beta,
                          EventChain& chain) {
    const auto count = static_cast<int>(dw.numel());
    set_args(kernel, kSumPartialsKernel, partials, static_cast<cl_ulong>(offset_floats), static_cast<int>(parts),
             count, dw.buffer(), offset_of(dw), beta);
    launch(queue, kernel, kSumPartialsKernel, cl::NDRange(static_cast<std::size_t>(count)), cl::NDRange(kGroup),
           chain);
}

}  // namespace netcl::internal
