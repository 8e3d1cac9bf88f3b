#pragma once
// One convolution problem: the shapes a selector predicate receives, with
// the direction, spatial rank and data type that make it a problem (as
// oneDNN's convolution descriptor carries prop_kind, ndims and data types).
#include <cstdint>
#include <string>
#include <vector>

#include "netcl/ConvDirection.hpp"
#include "netcl/DataType.hpp"
#include "netcl/PostOps.hpp"

namespace netcl {

// NCHW input, K x C/groups x R x S weights, N x K x P x Q output. Padding
// may differ on every side (ONNX's pads = [top, left, bottom, right]).
// The shapes are the forward layer's in every direction: backward data
// computes dx (N x C x H x W) from dy (N x K x P x Q), backward weights dw
// (K x C/groups x R x S) from x and dy.
//
// Rank 3 (NCDHW, Lan et al.) adds a depth to the input (D), the filter (T)
// and the output (O()), with its own stride, padding and dilation; a rank-2
// problem keeps those at 1, 0 and 1 (validate() says so otherwise), and the
// element counts below include them, so a 2-D problem is a 3-D one of depth 1
// without a second copy of the 2-D arithmetic.
struct ConvShapes {
    std::int64_t N = 1, C = 1, H = 1, W = 1;  // input
    std::int64_t K = 1, R = 1, S = 1;         // output channels, filter height, width
    std::int64_t stride_h = 1, stride_w = 1;
    std::int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
    std::int64_t dilation_h = 1, dilation_w = 1;
    std::int64_t groups = 1;
    bool bias = false;

    ConvDirection direction = ConvDirection::FORWARD;
    DataType dtype = DataType::FLOAT32;  // of x, w, y and their gradients; arithmetic is always float32
    int spatial_rank = 2;                // 2: NCHW; 3: NCDHW
    std::int64_t D = 1, T = 1;           // rank 3: input depth, filter depth
    std::int64_t stride_d = 1, pad_front = 0, pad_back = 0, dilation_d = 1;
    // Forward only: what the output stage adds as y is written. Part of the
    // problem, since it changes the programs built (a kernel's build options).
    PostOps post_ops;
    // Forward only: the layer trains (ConvLayer::set_training, as oneDNN's
    // forward_training and PyTorch's module.train()), so its weights are new
    // before every run and whatever a plan builds from them (Winograd's U,
    // packed panels) is paid every run, not once. The selector weighs that;
    // the values computed are the same either way.
    bool training = false;
    // Forward only: the weights tensor is the filters of the layer whose
    // backward data this is, C/groups-major within each group (oneDNN's iohw
    // against oihw) and, beyond 1x1, rotated 180° in space. Backward data whose
    // one stride phase with taps takes the whole filter (a 1x1 layer at any
    // stride, any filter at stride 1) is the forward convolution of dy with
    // the layer's own filters read so, in place, with no rotated copy
    // (ops/as_forward/). Implementations that take it say so
    // (ProblemKinds::transposed_filters).
    bool weights_transposed = false;

    void set_padding(std::int64_t all) { set_padding(all, all); }
    void set_padding(std::int64_t height, std::int64_t width) { set_padding(height, width, height, width); }
    void set_padding(std::int64_t top, std::int64_t left, std::int64_t bottom, std::int64_t right) {
        pad_top = top, pad_left = left, pad_bottom = bottom, pad_right = right;
    }
    bool symmetric_padding() const { return pad_top == pad_bottom && pad_left == pad_right; }

    std::int64_t P() const;  // output height
    std::int64_t Q() const;  // output width
    std::int64_t O() const;  // output depth (1 at rank 2)
    std::int64_t input_numel() const { return N * C * D * H * W; }
    std::int64_t output_numel() const { return N * K * O() * P() * Q(); }
    // N·O·P·Q: the output's pixels over the batch, the columns of every GEMM
    // the implementations run and the terms of each weight's gradient.
    std::int64_t output_pixels() const { return N * O() * P() * Q(); }
    std::int64_t weight_numel() const { return K * (C / groups) * T * R * S; }
    // The tensors' shapes at this rank: N x C x H x W (N x C x D x H x W),
    // N x K x P x Q (N x K x O x P x Q), K x C/groups x R x S (x T before R).
    std::vector<std::int64_t> input_shape() const;
    std::vector<std::int64_t> output_shape() const;
    std::vector<std::int64_t> weight_shape() const;
    // 2·N·K·(C/groups)·T·R·S·O·P·Q: the direct-convolution count the papers
    // use; the same in every direction (each is one such sum, reordered).
    double direct_flops() const;
    // The problem in another direction (same shapes; the post-ops belong to
    // forward, so the gradients are the convolution's alone).
    ConvShapes in_direction(ConvDirection d) const {
        ConvShapes s = *this;
        s.direction = d;
        if (d != ConvDirection::FORWARD) s.post_ops = {}, s.training = false, s.weights_transposed = false;
        return s;
    }
    // The weights change before every run: a training forward, and backward
    // data (only training runs it). Backward weights reads none.
    bool new_weights_every_run() const {
        return direction == ConvDirection::BACKWARD_DATA || (direction == ConvDirection::FORWARD && training);
    }

    // Throws netcl::Error naming the first field that makes no convolution.
    void validate() const;
    // "N=1 C=64 H=224 W=224 K=64 R=3 S=3 stride=1 pad=1 dil=1 groups=1";
    // uneven padding as "pad=top,left,bottom,right". What is not the 2-D
    // float32 forward default follows: " depth=D,T,stride,front,back,dil",
    // " dtype=float16", " dir=backward_data", " post=sum+relu", " training" (tuned records are keyed by
    // this text, so forward's keys are unchanged).
    std::string str() const;
    std::string problem_suffix() const;  // the part of str() after "groups=G" (empty for 2-D float32 forward)
    bool operator==(const ConvShapes&) const = default;
};

}  // namespace netcl
