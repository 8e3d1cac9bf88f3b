#pragma once
// Internal: kernels_cl/gradient_sums.cl's kernels, as the implementations
// that compute a weight gradient launch them (the bias gradient; a float32
// sum blended into dw).
#include "netcl/ConvShapes.hpp"
#include "netcl/OpenCL.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ProgramSpec.hpp"
#include "ops/internal/EventChain.hpp"

namespace netcl::internal {

inline constexpr const char* kBiasGradientKernel = "bias_gradient";
inline constexpr const char* kBlendWeightGradientKernel = "blend_weight_gradient";
inline constexpr const char* kBlendTransposedKernel = "blend_weight_gradient_transposed";
inline constexpr const char* kSumPartialsKernel = "sum_weight_gradient_partials";

// Their KernelSpecs (for ProgramSpec::kernels): one work-item per channel,
// and work-groups of 64 over the gradient's elements.
KernelSpec bias_gradient_kernel();
KernelSpec blend_weight_gradient_kernel();
KernelSpec blend_transposed_kernel();
KernelSpec sum_partials_kernel();

// db = beta * db + the sum of dy over N, P, Q.
void enqueue_bias_gradient(const cl::CommandQueue& queue, cl::Kernel& kernel, const ConvShapes& shapes,
                           const Tensor& dy, const Tensor& db, float beta, EventChain& chain);
// dw = beta * dw + the float32 sum at `sum` (+ offset, in floats).
void enqueue_blend_weight_gradient(const cl::CommandQueue& queue, cl::Kernel& kernel, const cl::Buffer& sum,
                                   std::size_t offset_floats, const Tensor& dw, float beta, EventChain& chain);
// dw = beta * dw + the sum, in order, of `count` float32 partial gradients of dw's size at `partials`.
void enqueue_sum_partials(const cl::CommandQueue& queue, cl::Kernel& kernel, const cl::Buffer& partials,
                          std::size_t offset_floats, std::int64_t count, const Tensor& dw, float beta,
                          EventChain& chain);
// The same from a sum holding each of `groups` blocks of dw (rows x length) transposed.
void enqueue_blend_transposed(const cl::CommandQueue& queue, cl::Kernel& kernel, const cl::Buffer& sum,
                              std::size_t offset_floats, const Tensor& dw, float beta, std::int64_t groups,
                              std::int64_t rows, std::int64_t length, EventChain& chain);

}  // namespace netcl::internal
