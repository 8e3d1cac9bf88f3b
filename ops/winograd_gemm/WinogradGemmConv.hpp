#pragma once
// Internal: CONV2D_WINOGRAD with separate transforms. set_weights computes
// U[e][K][C] once; each forward runs, per pass of tiles, the input
// transform into V, one batched GEMM over the alpha^2 transform elements
// into M, and the output transform with the bias into y.
#include <memory>
#include <string>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/winograd_gemm/WinogradGemmConfig.hpp"

namespace netcl {

class WinogradGemmConv final : public ConvStrategy {
public:
    WinogradGemmConv(std::shared_ptr<Context> context, const ConvShapes& shapes, const WinogradGemmConfig& config);

    void set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) override;
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;

private:
    // One chunk of config_.images_per_chunk images: its input (x, or its
    // float32 copy) and its first output element, every pass.
    void enqueue_chunk(const cl::Buffer& input, cl_ulong input_offset, const Tensor& y, cl_ulong y_offset,
                       const Tensor& bias, const Workspace& workspace, internal::EventChain& chain);

    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    WinogradGemmConfig config_;
    // The transforms: the row kernels (config_.row_lanes), the channel ones
    // (config_.transposed) or a tile a work-item; their names for errors.
    cl::Kernel weights_kernel_, input_kernel_, output_kernel_, gemm_kernel_;
    cl::Kernel widen_kernel_;  // float16 layers only
    std::string input_name_, output_name_;
    Tensor u_;
    Tensor bias_;
    bool has_weights_ = false;
};

}  // namespace netcl
