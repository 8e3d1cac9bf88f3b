#pragma once
// Internal: CONV2D_NAIVE, direct convolution (kernels_cl/conv2d_naive.cl)
// for every stride, padding, dilation, group count and bias, in every
// direction. No workspace. The device reference and the last resort.
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
    void enqueue_backward_data(const Tensor& dy, const Tensor& dx, const Workspace& workspace,
                               internal::EventChain& chain) override;
    void enqueue_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& dw, const Tensor* db, float beta,
                                  const Workspace& workspace, internal::EventChain& chain) override;

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    NaiveConfig config_;
    cl::Kernel kernel_;
    cl::Kernel bias_kernel_;  // backward weights with a bias
    Tensor weights_;
    Tensor bias_;
    bool has_weights_ = false;
};

}  // namespace netcl
