#pragma once
#include <memory>
#include <vector>

#include "../../runtime/Context.hpp"
#include "../../runtime/Tensor.hpp"
#include "../../selector/Plan.hpp"
#include "../ConvShapes.hpp"
#include "../ConvStrategy.hpp"

namespace netcl {

// CONV2D_WINOGRAD: F(2x2,3x3) or F(4x4,3x3) (variant.winograd_tile), 3x3
// stride 1 dilation 1, any padding, groups and bias. set_weights transforms
// U = G g G^T on the device once (kernels_cl/winograd_weights.cl); enqueue
// runs the fused three-phase kernel (kernels_cl/winograd_fused.cl) once per
// group. variant.low_local_memory picks the small-block build, and
// variant.constant_weights binds U as __constant. Every shape is handled by
// bounds inside the kernel: no padded copies of x or y.
class WinogradConv final : public ConvStrategy {
public:
    // Throws netcl::Error when why_not() refuses the variant for `shapes` on
    // the context's profile.
    WinogradConv(std::shared_ptr<Context> context, const Variant& variant, const ConvShapes& shapes);

    void set_weights(const Tensor& weights, const Tensor* bias) override;
    void enqueue(const Tensor& x, Tensor& y, std::vector<cl::Event>& events) override;
    std::size_t workspace_bytes() const override;

    // The transformed weights U ([group][Kp / BK][Cp][alpha^2][BK]); tests read it.
    const Tensor& transformed_weights() const { return u_; }

private:
    std::shared_ptr<Context> context_;
    Variant variant_;
    ConvShapes shapes_;
    cl::Kernel weights_kernel_;
    cl::Kernel fused_kernel_;
    Tensor u_;
    Tensor bias_;
    bool has_weights_ = false;
};

// The factory's entry point for CONV2D_WINOGRAD.
std::unique_ptr<ConvStrategy> make_winograd_strategy(std::shared_ptr<Context> context, const Variant& variant,
                                                     const ConvShapes& shapes);

}  // namespace netcl
