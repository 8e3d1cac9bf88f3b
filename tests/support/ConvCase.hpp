#pragma once
// Runs one convolution through netcl::Conv2d the way every strategy's suite
// checks it: random inputs, weights and bias in [-1, 1] from a seed, output
// poisoned with NaN before the run, compared element by element against the
// fp64 reference (tests/support/ReferenceConv) with conv_tolerance(). The
// shapes' direction says which: forward (y), backward data (dx from a random
// dy) or backward weights (dw and db from random x and dy).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"
#include "netcl/Kernel.hpp"
#include "netcl/Plan.hpp"

namespace netcl {
class Context;
class KernelSelector;
}

namespace netcl::test {

struct ConvCaseOptions {
    // Strict override (Conv2dOptions::strategy / variant); unset: ask the selector.
    std::optional<Kernel> strategy;
    std::optional<Variant> variant;
    std::uint64_t seed = 1;
    double tolerance_factor = 1.0;  // passed to conv_tolerance()
    std::optional<std::size_t> workspace_limit_bytes;
    std::optional<double> max_error_factor;  // Conv2dOptions::max_error_factor
    KernelSelector* selector = nullptr;
    // The context to run on; nullptr means the test process's shared one.
    std::shared_ptr<Context> context;
    // 0: compare every output; else only this many sampled outputs (large
    // layers; forward only).
    std::size_t samples = 0;
    // Backward weights: dw = beta * dw + gradient. 0 poisons dw and db with
    // NaN first; otherwise they start from random values the reference blends.
    float beta = 0.0f;
};

struct ConvCaseResult {
    double max_abs_error = 0;
    double tolerance = 0;
    std::size_t non_finite = 0;  // NaN/Inf outputs (an unwritten element keeps its NaN poison)
    // Flat index of the first non-finite output, else the largest error: into
    // N x K x P x Q forward, dx backward data, dw then db backward weights.
    std::size_t worst_index = 0;
    std::size_t compared = 0;     // outputs compared
    Plan plan;                    // what Conv2d ran
    std::size_t workspace_bytes = 0;

    bool passed() const { return non_finite == 0 && max_abs_error <= tolerance && compared > 0; }
};

ConvCaseResult run_conv_case(const ConvShapes& shapes, const ConvCaseOptions& options = {});
// The common case: one strategy (and optionally one variant) by strict override.
ConvCaseResult run_conv_case(const ConvShapes& shapes, Kernel strategy, std::optional<Variant> variant = std::nullopt,
                             std::uint64_t seed = 1, double tolerance_factor = 1.0);
// One of IM2COL's variants under `context`'s profile (a weight gradient blended into dw at `beta`).
ConvCaseResult run_im2col_variant(const Variant& variant, const ConvShapes& shapes,
                                  const std::shared_ptr<Context>& context, std::uint64_t seed, float beta = 0.0f);

// "N=1 C=3 ... groups=1 bias=1 [CONV2D_NAIVE: strict override]: max error 1.2e-7 (tolerance 2.8e-5), 0 non-finite,
//  worst output n=0 k=2 p=3 q=4" — for failure messages.
std::string describe(const ConvShapes& shapes, const ConvCaseResult& result);

// Shapes that hit the edges every strategy must get right: 1x1 images, odd
// sizes (7, 13, 27), H != W, C = 1 and 3, K not a multiple of 8, N = 1, 3, 8,
// padding 0/1/2, stride 2, dilation 2, groups 2, depthwise, bias on and off.
std::vector<ConvShapes> edge_case_shapes();
// One spatial axis of a 3-D layer, and the layer from its three axes.
struct Axis {
    std::int64_t size, kernel, stride = 1, pad_begin = 0, pad_end = 0, dilation = 1;
};
ConvShapes make3d(std::int64_t N, std::int64_t C, std::int64_t K, Axis d, Axis h, Axis w, std::int64_t groups = 1,
                  bool bias = true);
// The same in 3-D: depth 1 and 2, a stride of 2 in one axis only, dilation
// in depth, groups and depthwise, six different pads, N = 3, C and K off the
// block, 1x1x1 and one voxel.
std::vector<ConvShapes> edge_case_shapes_3d();
// Small random convolutions (every parameter drawn), reproducible from `rng`.
ConvShapes random_small_shape(std::mt19937_64& rng);

// A VGG-like layer (N=2 C=64 28x30 K=42 3x3 pad 1, bias) run by `strategy` and
// checked on 2000 sampled outputs plus a scan of all outputs for NaN poison,
// the way netcl-bench checks full-size layers.
ConvCaseResult run_sampled_vgg_like_case(Kernel strategy, std::uint64_t seed,
                                         std::optional<Variant> variant = std::nullopt);
ConvShapes sampled_vgg_like_shape();

}  // namespace netcl::test
