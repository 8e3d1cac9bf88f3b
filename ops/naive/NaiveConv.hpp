#pragma once
// Internal: CONV2D_NAIVE, direct convolution (kernels_cl/conv2d_naive.cl)
// for every stride, padding, dilation, group count and bias. No workspace.
// The device reference and the last resort.
#include <memory>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/naive/NaiveConfig.hpp"

namespace netcl {

class NaiveConv final : public ConvStrategy {
public:
    NaiveConv(std::shared_ptr<Context> context, const ConvShapes& shapes);

    void set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) override;
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    NaiveConfig config_;
    cl::Kernel kernel_;
    Tensor weights_;
    Tensor bias_;
    bool has_weights_ = false;
};

}  // namespace netcl
