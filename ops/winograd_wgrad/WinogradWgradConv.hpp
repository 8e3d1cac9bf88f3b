#pragma once
// Internal: Winograd's weight gradient as a strategy (WinogradWgradConfig.hpp says how).
#include <memory>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/winograd_wgrad/WinogradWgradConfig.hpp"

namespace netcl {

class WinogradWgradConv final : public ConvStrategy {
public:
    WinogradWgradConv(std::shared_ptr<Context> context, const ConvShapes& shapes, const WinogradWgradConfig& config);

    void set_weights(const Tensor&, const Tensor*, internal::EventChain&) override {}  // reads no weights
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;
    void enqueue_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& dw, const Tensor* db, float beta,
                                  const Workspace& workspace, internal::EventChain& chain) override;

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    WinogradWgradConfig config_;
    cl::Kernel input_, dy_, output_, bias_gradient_;
    cl::Kernel multiply_, multiply_add_;  // the first pass writes M, the later ones add to it (built where there are any)
};

}  // namespace netcl
