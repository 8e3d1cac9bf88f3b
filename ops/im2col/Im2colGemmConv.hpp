#pragma once
// Internal: IM2COL's im2col-gemm variant. The same column workspace as
// im2col-clblast (ops/im2col/Im2colLayout.hpp, kernels_cl/im2col.cl), then
// netcl's GEMM engine (kernels_cl/gemm.cl), batched over the pass's images,
// one launch per group, the bias added in the GEMM's store:
// Y[n, g] (K/g x P·Q) = W[g] (K/g x C/g·R·S) x col[n, g] (C/g·R·S x P·Q).
//
// With panels (few pixels an image): the columns written as the GEMM's B
// panels across the pass's images, the weights packed once at set_weights
// (or, in a training forward, read where they lie), one GEMM a pass
// (Im2colGemmConfig::panels).
//
// Why it exists beside the implicit GEMM: on layers with few input channels
// and a large image (VGG's conv1.1, C = 3, 224x224) the implicit GEMM's
// reduction is 27 steps per tile and its channel-vectorised stores are
// scalar and strided by P·Q; the column copy (5.4 MB) plus a GEMM
// vectorised along the pixels ran it several times faster (README).
#include <memory>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/im2col/Im2colGemmConfig.hpp"

namespace netcl {

class Im2colGemmConv final : public ConvStrategy {
public:
    Im2colGemmConv(std::shared_ptr<Context> context, const ConvShapes& shapes, const Im2colGemmConfig& config);

    void set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) override;
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    Im2colGemmConfig config_;
    cl::Kernel im2col_, gemm_;
    cl::Kernel widen_;                       // float16 layers only (not in panels)
    cl::Kernel pack_weights_, pack_columns_;  // config_.panels (pack_weights_: packs_weights())
    Tensor weights_;                         // float32: the caller's, their widened copy, or their panels
    Tensor bias_;
    bool has_weights_ = false;
};

}  // namespace netcl
