#pragma once
// Internal: the implicit GEMM (kernels_cl/conv_kvec.cl): any filter size,
// stride and padding, with the input gathered on the fly, so no workspace.
// set_weights packs the weights once into NR-channel panels; one launch per
// group, images along the batch dimension.
#include <memory>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/implicit_gemm/ImplicitGemmConfig.hpp"

namespace netcl {

class ImplicitGemmConv final : public ConvStrategy {
public:
    ImplicitGemmConv(std::shared_ptr<Context> context, const ConvShapes& shapes, const ImplicitGemmConfig& config);

    void set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) override;
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    ImplicitGemmConfig config_;
    cl::Kernel conv_;
    cl::Kernel pack_;
    cl::Kernel widen_;  // float16 layers only
    Tensor packed_;  // groups x the panels of one group
    Tensor bias_;
    bool has_weights_ = false;
};

}  // namespace netcl
