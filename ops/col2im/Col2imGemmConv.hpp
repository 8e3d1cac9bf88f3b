#pragma once
// Internal: col2im-gemm's strategy (Col2imGemmConfig.hpp says how).
#include <memory>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/col2im/Col2imGemmConfig.hpp"

namespace netcl {

class Col2imGemmConv final : public ConvStrategy {
public:
    Col2imGemmConv(std::shared_ptr<Context> context, const ConvShapes& shapes, const Col2imGemmConfig& config);

    void set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) override;
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;
    void enqueue_backward_data(const Tensor& dy, const Tensor& dx, const Workspace& workspace,
                               internal::EventChain& chain) override;

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    Col2imGemmConfig config_;
    cl::Kernel transpose_, gemm_, col2im_, pack_rows_, pack_columns_;
    // W^T, a group's C/groups·R·S x K/groups block after another, float32 (or in panels); in place, W itself.
    Tensor transposed_;
    bool has_weights_ = false;
};

}  // namespace netcl
