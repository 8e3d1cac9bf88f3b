#pragma once
// Internal: kernels_cl/gradient_sums.cl's kernels, as the implementations
// that compute a weight gradient launch them (the bias gradient; the sum of
// a pass's partial gradients).
#include "netcl/ConvShapes.hpp"
#include "netcl/OpenCL.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ProgramSpec.hpp"
#include "ops/internal/EventChain.hpp"

namespace netcl::internal {

inline constexpr const char* kBiasGradientKernel = "bias_gradient";
inline constexpr const char* kSumPartialsKernel = "sum_partials";

// Their KernelSpecs (for ProgramSpec::kernels): one work-item per channel,
// and work-groups of 64 over the gradient's elements.
KernelSpec bias_gradient_kernel();
KernelSpec sum_partials_kernel();

// db = beta * db + the sum of dy over N, P, Q.
void enqueue_bias_gradient(const cl::CommandQueue& queue, cl::Kernel& kernel, const ConvShapes& shapes,
                           const Tensor& dy, const Tensor& db, float beta, EventChain& chain);
// dw = beta * dw + the sum of `parts` consecutive blocks of dw's size at
// `partials` (+ offset, in floats).
void enqueue_sum_partials(const cl::CommandQueue& queue, cl::Kernel& kernel, const cl::Buffer& partials,
                          std::size_t offset_floats, std::int64_t parts, const Tensor& dw, float beta,
                          EventChain& chain);

}  // namespace netcl::internal
