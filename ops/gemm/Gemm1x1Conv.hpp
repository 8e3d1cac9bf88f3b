#pragma once
// Internal: a 1x1 unpadded convolution as netcl's GEMM. Straight on NCHW (no
// copy, no workspace): one launch per group, images along the batch
// dimension. Or, where the configuration packs x (few pixels an image, or a
// stride): x gathered into panels across the images in the workspace, one
// launch for all of them. The bias added in the GEMM's epilogue. A float16
// layer's weights are widened to float32 once, at set_weights
// (kernels_cl/widen.cl says why), or packed into panels (which widens);
// x, y and the bias are read and written in half.
#include <memory>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/gemm/Gemm1x1Config.hpp"

namespace netcl {

class Gemm1x1Conv final : public ConvStrategy {
public:
    Gemm1x1Conv(std::shared_ptr<Context> context, const ConvShapes& shapes, const Gemm1x1Config& config);

    void set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) override;
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    Gemm1x1Config config_;
    cl::Kernel kernel_;
    cl::Kernel widen_;         // float16 layers only
    cl::Kernel pack_weights_;  // config_.pack_weights
    cl::Kernel pack_x_;        // config_.pack_x
    Tensor weights_;           // float32: the caller's, their widened copy, or their panels
    Tensor bias_;
    bool has_weights_ = false;
};

}  // namespace netcl
