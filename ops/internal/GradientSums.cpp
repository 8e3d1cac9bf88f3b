#include "ops/internal/GradientSums.hpp"

#include "ops/internal/KernelLaunch.hpp"

namespace netcl::internal {

namespace {
constexpr std::size_t kGroup = 64;
}  // namespace

KernelSpec bias_gradient_kernel() { return {kBiasGradientKernel, {1, 1, 1}}; }
KernelSpec blend_weight_gradient_kernel() { return {kBlendWeightGradientKernel, {kGroup, 1, 1}}; }
KernelSpec blend_transposed_kernel() { return {kBlendTransposedKernel, {1, 1, 1}}; }
KernelSpec sum_partials_kernel() { return {kSumPartialsKernel, {kGroup, 1, 1}}; }

void enqueue_bias_gradient(const cl::CommandQueue& queue, cl::Kernel& kernel, const ConvShapes& s, const Tensor& dy,
                           const Tensor& db, float beta, EventChain& chain) {
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    set_args(kernel, kBiasGradientKernel, dy.buffer(), offset_of(dy), db.buffer(), offset_of(db), beta, i(s.N),
             i(s.K), i(s.O() * s.P() * s.Q()));
    launch(queue, kernel, kBiasGradientKernel, cl::NDRange(static_cast<std::size_t>(s.K)), cl::NDRange(1), chain);
}

void enqueue_blend_weight_gradient(const cl::CommandQueue& queue, cl::Kernel& kernel, const cl::Buffer& sum,
                                   std::size_t offset_floats, const Tensor& dw, float beta, EventChain& chain) {
    const auto count = static_cast<int>(dw.numel());
    set_args(kernel, kBlendWeightGradientKernel, sum, static_cast<cl_ulong>(offset_floats), count, dw.buffer(),
             offset_of(dw), beta);
    const auto items = static_cast<std::size_t>((count + 7) / 8);  // eight elements a work-item
    launch(queue, kernel, kBlendWeightGradientKernel, cl::NDRange(items), cl::NDRange(kGroup), chain);
}

void enqueue_sum_partials(const cl::CommandQueue& queue, cl::Kernel& kernel, const cl::Buffer& partials,
                          std::size_t offset_floats, std::int64_t count, const Tensor& dw, float beta,
                          EventChain& chain) {
    const auto elements = static_cast<int>(dw.numel());
    set_args(kernel, kSumPartialsKernel, partials, static_cast<cl_ulong>(offset_floats), static_cast<int>(count),
             elements, dw.buffer(), offset_of(dw), beta);
    const auto items = (static_cast<std::size_t>(elements) + kGroup - 1) / kGroup * kGroup;
    launch(queue, kernel, kSumPartialsKernel, cl::NDRange(items), cl::NDRange(kGroup), chain);
}

void enqueue_blend_transposed(const cl::CommandQueue& queue, cl::Kernel& kernel, const cl::Buffer& sum,
                              std::size_t offset_floats, const Tensor& dw, float beta, std::int64_t groups,
                              std::int64_t rows, std::int64_t length, EventChain& chain) {
    auto blocks = [](std::int64_t n) { return static_cast<std::size_t>((n + 7) / 8); };
    set_args(kernel, kBlendTransposedKernel, sum, static_cast<cl_ulong>(offset_floats), dw.buffer(), offset_of(dw),
             beta, static_cast<int>(rows), static_cast<int>(length));
    launch(queue, kernel, kBlendTransposedKernel,
           cl::NDRange(blocks(rows), blocks(length), static_cast<std::size_t>(groups)), cl::NDRange(1, 1, 1), chain);
}

}  // namespace netcl::internal
