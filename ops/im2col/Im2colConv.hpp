#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include "../../runtime/Context.hpp"
#include "../../runtime/Tensor.hpp"
#include "../ConvShapes.hpp"
#include "../ConvStrategy.hpp"
#include "Im2colLayout.hpp"

namespace netcl {

// IM2COL: kernels_cl/im2col.cl expands a pass of images into a column buffer,
// then one CLBlast GemmBatched call multiplies every (image, group) pair:
// Y[n, g] (K/g x P·Q) = W[g] (K/g x C/g·R·S) x col[n, g] (C/g·R·S x P·Q).
// 1x1 stride-1 unpadded layers skip the expansion and multiply the input.
// The bias is added by kernels_cl/bias_add.cl afterwards.
class Im2colConv final : public ConvStrategy {
public:
    // `workspace_limit_bytes`: the cap in force (im2col_workspace_limit());
    // it bounds how many images one pass expands.
    Im2colConv(std::shared_ptr<Context> context, const ConvShapes& shapes,
               std::size_t workspace_limit_bytes = kIm2colPassBytes);

    void set_weights(const Tensor& weights, const Tensor* bias) override;
    void enqueue(const Tensor& x, Tensor& y, std::vector<cl::Event>& events) override;
    std::size_t workspace_bytes() const override { return layout_.workspace_bytes; }

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    Im2colLayout layout_;
    cl::Kernel im2col_;
    cl::Kernel bias_add_;
    cl::Buffer columns_;
    Tensor weights_;
    Tensor bias_;
    bool has_weights_ = false;
};

}  // namespace netcl
