#pragma once
// Internal: CONV2D_WINOGRAD, F(m x m, 3 x 3) for 3x3 stride-1 undilated
// layers with any padding, groups and bias. set_weights transforms
// U = G g G^T on the device once (kernels_cl/winograd_weights.cl); enqueue
// runs the fused three-phase kernel (kernels_cl/winograd_fused.cl) once per
// group. Every shape is handled by bounds inside the kernel: no padded copies
// of x or y.
#include <memory>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/winograd/WinogradConfig.hpp"

namespace netcl {

class WinogradConv final : public ConvStrategy {
public:
    WinogradConv(std::shared_ptr<Context> context, const WinogradConfig& config, const ConvShapes& shapes);

    void set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) override;
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;

    // The transformed weights U ([group][Kp / BK][Cp][alpha^2][BK]); tests read it.
    const Tensor& transformed_weights() const { return u_; }

private:
    std::shared_ptr<Context> context_;
    WinogradConfig config_;
    ConvShapes shapes_;
    cl::Kernel weights_kernel_;
    cl::Kernel fused_kernel_;
    cl::Kernel reduce_kernel_;
    Tensor u_;
    Tensor bias_;
    bool has_weights_ = false;
};

}  // namespace netcl
