#pragma once
// A 2-D convolution layer, as a framework's Conv2d op holds it.
#include <array>
#include <cstdint>
#include <optional>

#include "netcl/ConvLayer.hpp"

namespace netcl {

// Parameters as PyTorch's nn.Conv2d takes them.
struct Conv2dOptions {
    std::int64_t in_channels = 0;
    std::int64_t out_channels = 0;
    std::array<std::int64_t, 2> kernel{3, 3};
    std::array<std::int64_t, 2> stride{1, 1};
    Padding padding;                    // used when auto_pad is NOTSET
    AutoPad auto_pad = AutoPad::NOTSET;
    std::array<std::int64_t, 2> dilation{1, 1};
    std::int64_t groups = 1;
    bool bias = true;
    // The storage type of x, weights, bias, y and the gradients, all one
    // type; arithmetic is float32 either way (float16 is read and written
    // with vload_half/vstore_half, so no device needs cl_khr_fp16). A tensor
    // of another type is a netcl::Error.
    DataType dtype = DataType::FLOAT32;
    // Forward's output stage, applied as each output is written by every
    // implementation (no pass of its own): y = activation(conv + bias
    // [+ y's contents on entry, the residual]). Not in the gradients.
    PostOps post_ops;
    // Strict per-op override: this strategy or a netcl::Error saying why it cannot.
    std::optional<Kernel> strategy;
    // With `strategy`: this exact variant (tests, netcl-tune, netcl-bench).
    std::optional<Variant> variant;
    // Caps the workspace of this op's forward (else the profile's limits):
    // im2col + CLBlast batches fewer images per pass, separate-transform
    // Winograd fewer tiles; a plan that cannot fit is not taken.
    std::optional<std::size_t> workspace_limit_bytes;
    // The accuracy bound (else the profile's max_error_factor; >= 1, or a
    // netcl::Error): the selector, a framework rule's variant and a tuned
    // record never run a variant whose error factor exceeds it. The factor
    // (Plan::error_factor) is the tolerance multiplier each variant declares
    // over a direct sum's 1e-6 per term: 1 direct and GEMM, 4 F(2x2,3x3), 16
    // F(4x4,3x3) and F(4x4,5x5), 64 F(6x6,3x3), 512 F(9x9,5x5); so 16 means
    // "no tile worse than F(4x4,3x3)". A strict `variant` above is not
    // checked against it.
    std::optional<double> max_error_factor;
    // The selector to ask; nullptr means KernelSelector::global().
    KernelSelector* selector = nullptr;

    // The options of a layer computing `shapes` (channels, kernel, stride,
    // padding, dilation, groups, bias, post-ops); strategy and the rest left as defaults.
    static Conv2dOptions for_shapes(const ConvShapes& shapes);
};

// NCHW in, NCHW out; every method is ConvLayer's (ops/netcl/ConvLayer.hpp).
class Conv2d : public ConvLayer {
public:
    Conv2d(std::shared_ptr<Context> context, Conv2dOptions options);
    const Conv2dOptions& options() const { return options_; }

private:
    Conv2dOptions options_;
};

}  // namespace netcl
