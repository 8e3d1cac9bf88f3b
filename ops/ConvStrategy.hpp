#pragma once
// Internal: one implementation's variant, prepared for one problem shape.
// Made by its ConvImplementation from a Plan; owned and cached by Conv2d.
// Never decides anything: the plan says what it is.
#include <cstddef>

#include "netcl/OpenCL.hpp"
#include "netcl/Tensor.hpp"
#include "ops/internal/EventChain.hpp"

namespace netcl {

// Scratch memory for one run, declared by the implementation
// (ConvImplementation::workspace_bytes) and given by Conv2d: netcl's own, or
// a part of a caller's buffer.
struct Workspace {
    cl::Buffer buffer;             // null when the strategy needs none
    std::size_t offset_bytes = 0;  // where the scratch starts in `buffer`
    std::size_t bytes = 0;
};

class ConvStrategy {
public:
    virtual ~ConvStrategy() = default;

    // Called once per Conv2d::set_weights: weights K x C/groups x R x S and
    // bias K (nullptr without bias), netcl's own copies on the device.
    // Strategies that transform weights (Winograd's U = G g Gᵀ) enqueue it
    // here, after what `chain` waits on.
    virtual void set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) = 0;

    // Enqueues the convolution of x (N x C x H x W) into y (N x K x P x Q),
    // each command after the one before (internal::EventChain); never blocks.
    virtual void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace,
                         internal::EventChain& chain) = 0;

    // A strategy built for a backward problem (its implementation's
    // problem_kinds() take that direction) overrides the one it runs; the
    // others are never called, and say so if they are.
    //
    // dx (N x C x H x W) from dy (N x K x P x Q) and the weights of set_weights.
    virtual void enqueue_backward_data(const Tensor& dy, const Tensor& dx, const Workspace& workspace,
                                       internal::EventChain& chain);
    // dw = beta * dw + the gradient (K x C/groups x R x S), and db (K) the
    // same way when `db` is given, from x and dy; beta 0 never reads them.
    virtual void enqueue_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& dw, const Tensor* db,
                                          float beta, const Workspace& workspace, internal::EventChain& chain);
};

}  // namespace netcl
