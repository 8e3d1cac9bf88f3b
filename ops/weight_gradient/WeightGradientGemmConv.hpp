#pragma once
// Internal: wgrad-gemm's strategy (WeightGradientGemmConfig.hpp says how).
#include <memory>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/weight_gradient/WeightGradientGemmConfig.hpp"

namespace netcl {

class WeightGradientGemmConv final : public ConvStrategy {
public:
    WeightGradientGemmConv(std::shared_ptr<Context> context, const ConvShapes& shapes,
                           const WeightGradientGemmConfig& config);

    void set_weights(const Tensor&, const Tensor*, internal::EventChain&) override {}  // reads no weights
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;
    void enqueue_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& dw, const Tensor* db, float beta,
                                  const Workspace& workspace, internal::EventChain& chain) override;

private:
    void enqueue_dot(const Tensor& x, const Tensor& dy, const Tensor& dw, float beta, bool writes_into_dw,
                     const Workspace& workspace, internal::EventChain& chain);
    void enqueue_columns(const Tensor& x, const Workspace& workspace, std::size_t at, std::int64_t n,
                         std::int64_t pq0, std::int64_t pixels, internal::EventChain& chain);

    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    WeightGradientGemmConfig config_;
    cl::Kernel patches_, columns_, gemm_, gemm_sum_, blend_, blend_transposed_, bias_gradient_, widen_, gemm_dot_;
};

}  // namespace netcl
