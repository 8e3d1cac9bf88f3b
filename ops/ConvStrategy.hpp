#pragma once
#include <cstddef>
#include <vector>

#include "../runtime/OpenCL.hpp"
#include "../runtime/Tensor.hpp"

namespace netcl {

// One strategy prepared for one problem shape. Made by the strategy registry
// from a Plan; owned and cached by Conv2d. Never decides anything: the plan
// says what it is.
class ConvStrategy {
public:
    virtual ~ConvStrategy() = default;

    // Called once per Conv2d::set_weights: weights K x C/groups x R x S and
    // bias K (nullptr without bias), both already on the device. Strategies
    // that transform weights (Winograd's U = G g Gᵀ) do it here, on the device.
    virtual void set_weights(const Tensor& weights, const Tensor* bias) = 0;

    // Enqueues the convolution of x (N x C x H x W) into y (N x K x P x Q)
    // without blocking; appends the events of every command it enqueued.
    virtual void enqueue(const Tensor& x, Tensor& y, std::vector<cl::Event>& events) = 0;

    // Device memory held besides x, y and the weights (im2col columns, padded copies).
    virtual std::size_t workspace_bytes() const { return 0; }
};

}  // namespace netcl
