#pragma once
#include <memory>
#include <vector>

#include "../../runtime/Context.hpp"
#include "../../runtime/Tensor.hpp"
#include "../ConvShapes.hpp"
#include "../ConvStrategy.hpp"

namespace netcl {

// CONV2D_NAIVE: direct convolution (kernels_cl/conv2d_naive.cl) for every
// stride, padding, dilation, group count and bias. No workspace. The device
// reference and the last resort.
class NaiveConv final : public ConvStrategy {
public:
    NaiveConv(std::shared_ptr<Context> context, const ConvShapes& shapes);

    void set_weights(const Tensor& weights, const Tensor* bias) override;
    void enqueue(const Tensor& x, Tensor& y, std::vector<cl::Event>& events) override;

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    int channel_block_ = 1;
    cl::Kernel kernel_;
    Tensor weights_;
    Tensor bias_;
    bool has_weights_ = false;
};

}  // namespace netcl
