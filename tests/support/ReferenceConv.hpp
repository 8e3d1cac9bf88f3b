#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "netcl/ConvShapes.hpp"
#include "netcl/Plan.hpp"

namespace netcl {

// The project's one fp64 host reference convolution (tests, netcl-bench's
// accuracy table). NCHW input, K x C/groups x R x S weights, every parameter of
// ConvShapes (stride, padding, dilation, groups, bias); at spatial rank 3
// NCDHW input and K x C/groups x T x R x S weights, the depth with its own
// stride, padding and dilation. Products and sums are taken in double, so its
// own error is negligible beside any fp32 kernel's.
//
// `bias` must hold K values when shapes.bias is set and is ignored otherwise.
// Throws netcl::Error when a vector's length does not match the shapes.
std::vector<double> reference_conv(const ConvShapes& shapes, const std::vector<float>& x,
                                   const std::vector<float>& weights, const std::vector<float>& bias);

// The output stage (ops/netcl/PostOps.hpp) on a forward reference, in
// double: activation(conv + residual), the residual being y's contents on
// entry where post_ops.sum (else unused). A NaN stays NaN, as in PyTorch.
std::vector<double> reference_post_ops(const PostOps& post_ops, std::vector<double> conv,
                                       const std::vector<float>& residual);

// The gradients, from the same sums (one reference for every direction):
// dx (N x C x H x W) from dy (N x K x P x Q) and the weights; dw (K x
// C/groups x R x S) and db (K; empty without a bias) from x and dy. The
// shapes' direction is not read: these are the forward layer's shapes.
std::vector<double> reference_conv_backward_data(const ConvShapes& shapes, const std::vector<float>& dy,
                                                 const std::vector<float>& weights);
struct WeightGradients {
    std::vector<double> dw;
    std::vector<double> db;
};
WeightGradients reference_conv_backward_weights(const ConvShapes& shapes, const std::vector<float>& x,
                                                const std::vector<float>& dy);

// One element of a gradient, for layers whose whole gradient would take
// minutes on the host: dx[index] (flat N x C x H x W), gathered from the dy
// elements it fed; and of dw followed by db (index < weight_numel: dw, else
// db[index - weight_numel]).
double reference_conv_backward_data_at(const ConvShapes& shapes, const std::vector<float>& dy,
                                       const std::vector<float>& weights, std::size_t index);
double reference_conv_backward_weights_at(const ConvShapes& shapes, const std::vector<float>& x,
                                          const std::vector<float>& dy, std::size_t index);

// One output element (flat NCHW index into N x K x P x Q).
double reference_conv_at(const ConvShapes& shapes, const std::vector<float>& x, const std::vector<float>& weights,
                         const std::vector<float>& bias, std::size_t output_index);

// Only the output elements `indices` names, in that order: for layers whose
// full reference would take minutes on the host.
std::vector<double> reference_conv_sampled(const ConvShapes& shapes, const std::vector<float>& x,
                                           const std::vector<float>& weights, const std::vector<float>& bias,
                                           const std::vector<std::size_t>& indices);

// `count` distinct-ish output indices drawn with `seed`, always including the
// first and the last element (the corners most often mis-indexed).
std::vector<std::size_t> sample_output_indices(const ConvShapes& shapes, std::size_t count, std::uint64_t seed);

// Largest |fp32 result - fp64 reference| accepted for data in [-1, 1].
//
// Why it scales with n = C/groups·R·S (+1 for the bias): each output is a sum
// of n products, each below 1 in magnitude. An fp32 accumulation rounds at
// every addition with relative error u = 2^-24 ≈ 6e-8 of the running sum; the
// worst case grows like n²·u, the typical random-walk case like n·u/3. A bound
// of kConvTolerancePerTerm = 1e-6 (≈ 16u) per term sits well above what any
// summation order (direct loop, CLBlast's blocked GEMM) produces on random
// data, yet far below the O(0.1..1) error a wrong index, a missed tap or a
// missing bias produces. Transform-based algorithms (Winograd) amplify the
// rounding by their matrices' norms; they pass a `factor` > 1 (F(2x2) about
// 4, F(4x4) larger) chosen from Lavin & Gray's Table 4.
//
// The reduction length n depends on the direction: C/groups·R·S (+ bias)
// forward, K/groups·R·S backward data (each dx element gathers at most that
// many dy·w products), N·P·Q backward weights (dw and db sum over every
// output position of every image).
inline constexpr double kConvTolerancePerTerm = 1e-6;
double conv_tolerance(const ConvShapes& shapes, double factor = 1.0);

// The `factor` for a variant: how much more rounding error than a direct sum
// its implementation declares (ConvImplementation::error_factor): 1 for
// naive and im2col, 4 for F(2x2,3x3), 16 for F(4x4,3x3).
double tolerance_factor(const Variant& variant);

// `count` floats uniform in [low, high) from a seeded generator: the data every
// check against the reference uses (tests, netcl-bench, netcl-tune).
std::vector<float> random_uniform(std::size_t count, std::uint64_t seed, float low = -1.0f, float high = 1.0f);

}  // namespace netcl
