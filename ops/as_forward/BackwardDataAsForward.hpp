#pragma once
// Internal: backward data as the forward convolution it equals at stride 1
// (Lavin & Gray §4.2). dx = conv(dy, w') with w' the filters rotated 180° and
// C and K swapped within each group, padded by dilation·(R-1) - pad on each
// side: so every forward implementation (Winograd's tiles, the GEMM engine)
// runs dgrad with its own kernels, and only the filters' rotation is new
// (kernels_cl/rotate_filters.cl, once per set_weights). An implementation
// opts in through ProblemKinds::backward_data_as_forward.
#include <memory>
#include <optional>
#include <string>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/ProgramSpec.hpp"

namespace netcl {

// Why backward data of `shapes` is no forward convolution (a stride, or a
// padding wider than the dilated filter's reach, which would need a negative
// padding); nothing when it is.
std::optional<std::string> backward_data_as_forward_why_not(const ConvShapes& shapes);
// That forward problem: input dy (N x K x P x Q), K' = C, filters R x S,
// stride 1, the same dilation and groups, no bias; its output is dx.
ConvShapes backward_data_as_forward(const ConvShapes& shapes);
// kernels_cl/rotate_filters.cl.
ProgramSpec filter_rotation_program();

class BackwardDataAsForward final : public ConvStrategy {
public:
    // `forward`: a strategy created for backward_data_as_forward(shapes).
    BackwardDataAsForward(std::shared_ptr<Context> context, const ConvShapes& shapes,
                          std::unique_ptr<ConvStrategy> forward);

    // Rotates the filters into a copy of its own and hands that to the forward strategy.
    void set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) override;
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;
    void enqueue_backward_data(const Tensor& dy, const Tensor& dx, const Workspace& workspace,
                               internal::EventChain& chain) override;

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    std::unique_ptr<ConvStrategy> forward_;
    cl::Kernel rotate_;
    Tensor rotated_;
};

}  // namespace netcl
