#pragma once
// Internal: CONV2D_NAIVE's direct-rows variant (kernels_cl/conv_rows.cl): a
// direct convolution vectorised along output rows for layers with few input
// channels and wide outputs (ResNet's 7x7 stride-2 stem). Each pass copies
// its images' input, padded and split into column phases, to the workspace,
// then one launch computes every output; weights are packed into MR-channel
// panels once per set_weights. Groups = 1 and dilation 1.
#include <memory>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/direct_rows/DirectRowsConfig.hpp"

namespace netcl {

class DirectRowsConv final : public ConvStrategy {
public:
    DirectRowsConv(std::shared_ptr<Context> context, const ConvShapes& shapes, const DirectRowsConfig& config);

    void set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) override;
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    DirectRowsConfig config_;
    cl::Kernel conv_, split_, pack_;
    Tensor packed_;
    Tensor bias_;
    bool has_weights_ = false;
};

}  // namespace netcl
