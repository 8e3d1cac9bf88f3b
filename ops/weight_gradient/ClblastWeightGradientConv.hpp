#pragma once
// Internal: wgrad-clblast, the weight gradient as IM2COL's columns times dy on
// CLBlast's SGEMM, for devices whose profile turns netcl's CPU-shaped GEMM
// engine off (nvidia-gpu). Per image n and group g:
//   dW_g (K/g x C/g·R·S) = beta_n dW_g + dY_{n,g} (K/g x P·Q) x col_{n,g}ᵀ (P·Q x C/g·R·S),
// with beta_n the caller's beta for the first image and 1 after it: the
// images summed into dw in order, so dw is the same bit for bit on every run.
// An image's GEMM runs whole (one strided-batched call over the groups,
// writing dw), or in pieces of its pixels, each into a float32 partial, then
// summed into dw (ClblastWeightGradientConfig.hpp says when). The columns are
// forward's (kernels_cl/im2col.cl, a pass of images at a time into the
// workspace; a 1x1 stride-1 unpadded float32 layer's are x itself). float16:
// ClblastWeightGradientConfig.hpp. On an H100
// through NVIDIA's OpenCL the direct kernel this replaces there ran VGG-16's
// weight gradients at N = 1 in 193.6 ms against cuDNN's 1.60 (tools/gpu/README.md).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/weight_gradient/ClblastWeightGradientConfig.hpp"

namespace netcl {

class ClblastWeightGradientConv final : public ConvStrategy {
public:
    ClblastWeightGradientConv(std::shared_ptr<Context> context, const ConvShapes& shapes,
                              const ClblastWeightGradientConfig& config);

    void set_weights(const Tensor&, const Tensor*, internal::EventChain&) override {}  // reads no weights
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;
    void enqueue_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& dw, const Tensor* db, float beta,
                                  const Workspace& workspace, internal::EventChain& chain) override;

private:
    // One CLBlast strided-batched SGEMM: `batch` products of kg x columns over `pixels`.
    void gemm(std::size_t a_offset, std::size_t a_stride, const cl::Buffer& b, std::size_t b_offset,
              std::size_t b_stride, const cl::Buffer& c, std::size_t c_offset, std::size_t c_stride,
              std::size_t pixels, std::size_t batch, float beta, const cl::Buffer& dy,
              const std::function<std::string()>& what, internal::EventChain& chain);

    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    ClblastWeightGradientConfig config_;
    cl::Kernel im2col_, bias_gradient_, sum_partials_, widen_;
};

// Its programs: the column expansion (unless the layout is direct),
// kernels_cl/gradient_sums.cl for the pieces' sum and db, and in float16 dy's
// widening (kernels_cl/widen.cl).
std::vector<ProgramSpec> clblast_weight_gradient_programs(const ConvShapes& shapes,
                                                          const ClblastWeightGradientConfig& config);

}  // namespace netcl
