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

// Their KernelSpecs (for ProgramSpec::kernels): one work-item per channel,
// and work-groups of 64 over the gradient's elements.
KernelSpec bias_gradient_kernel();
KernelSpec blend_weight_gradient_kernel();

// db = beta * db + the sum of dy over N, P, Q.
void enqueue_bias_gradient(const cl::CommandQueue& queue, cl::Kernel& kernel, const ConvShapes& shapes,
                           const Tensor& dy, const Tensor& db, float beta, EventChain& chain);
// How a float32 sum of dw lies: as dw, or each group's block (rows x
// length of dw) transposed.
struct SumLayout {
    std::int64_t rows = 0;    // dw's rows a group (K/groups); 0: the sum lies as dw
    std::int64_t length = 0;  // dw's columns a group (C/groups·R·S)
    static SumLayout transposed(std::int64_t rows, std::int64_t length) { return {rows, length}; }
};
// dw = beta * dw + the float32 sum at `sum` (+ offset, in floats).
void enqueue_blend_weight_gradient(const cl::CommandQueue& queue, cl::Kernel& kernel, const cl::Buffer& sum,
                                   std::size_t offset_floats, const Tensor& dw, float beta, EventChain& chain,
                                   SumLayout layout = {});

}  // namespace netcl::internal
