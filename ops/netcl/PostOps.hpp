#pragma once
// The output stage of a forward convolution: what the kernel that writes y
// applies to each value as it writes it, with no pass of its own (oneDNN's
// post-ops, ARM Compute Library's fused activation):
//
//   y = activation(conv(x) + bias + (sum ? y_on_entry : 0))
//
// `sum` is oneDNN's sum post-op: the output tensor's contents on entry are
// the residual (a ResNet block's shortcut); Conv2d::forward's overload with a
// residual copies a tensor held elsewhere into y first. The backward
// directions compute the convolution's gradients only: a caller applies the
// activation's derivative to dy first, as with oneDNN's backward primitives.
#include <string>

namespace netcl {

enum class Activation {
    NONE,
    RELU,        // max(v, 0)
    CLAMP,       // min(max(v, lower), upper): ReLU6 is clamp(0, 6)
    LEAKY_RELU,  // v < 0 ? alpha * v : v
};

struct PostOps {
    Activation activation = Activation::NONE;
    float alpha = 0.0f;                // LEAKY_RELU's slope below 0
    float lower = 0.0f, upper = 0.0f;  // CLAMP's bounds
    bool sum = false;                  // add y's contents on entry (a residual)

    static PostOps relu() { return {Activation::RELU}; }
    static PostOps relu6() { return clamp(0.0f, 6.0f); }
    static PostOps clamp(float lower, float upper) { return {Activation::CLAMP, 0.0f, lower, upper}; }
    static PostOps leaky_relu(float alpha) { return {Activation::LEAKY_RELU, alpha}; }
    // The same activation after a residual sum.
    PostOps with_sum() const {
        PostOps p = *this;
        p.sum = true;
        return p;
    }

    bool empty() const { return activation == Activation::NONE && !sum; }
    // "sum+relu", "clamp(0,6)", "leaky_relu(0.1)"; "" when empty.
    std::string str() const;
    // Throws netcl::Error for bounds that are not finite or ordered, or a
    // slope that is not finite.
    void validate() const;
    bool operator==(const PostOps&) const = default;
};

std::string to_string(Activation activation);

}  // namespace netcl
