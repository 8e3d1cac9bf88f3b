#pragma once
// Internal: IM2COL. kernels_cl/im2col.cl expands a pass of images into the
// column workspace, then one CLBlast GemmStridedBatched call per group
// multiplies every image of the pass:
// Y[n, g] (K/g x P·Q) = W[g] (K/g x C/g·R·S) x col[n, g] (C/g·R·S x P·Q).
// 1x1 stride-1 unpadded layers skip the expansion and multiply the input.
// The bias and the activation are applied by kernels_cl/output_stage.cl
// afterwards; a residual sum post-op is the GEMM's beta = 1.
// float16 (CLBlast's HGEMM needs cl_khr_fp16 and sums in half): the SGEMM
// reads the weights widened at set_weights and the columns, which the
// expansion widens (a 1x1 layer's too), and writes a pass's output in
// float32 into the workspace; output_stage_from_float adds the bias, applies
// the post-ops (the residual read from y) and stores the half y.
#include <cstddef>
#include <memory>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/im2col/Im2colLayout.hpp"

namespace netcl {

class Im2colConv final : public ConvStrategy {
public:
    Im2colConv(std::shared_ptr<Context> context, const ConvShapes& shapes, const Im2colLayout& layout);

    void set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) override;
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    Im2colLayout layout_;
    cl::Kernel im2col_;
    cl::Kernel output_stage_;  // bias and activation after CLBlast's GEMM (float16: the store into y)
    cl::Kernel widen_;         // float16: the weights' float32 copy
    Tensor weights_;
    Tensor bias_;
    bool has_weights_ = false;
};

}  // namespace netcl
