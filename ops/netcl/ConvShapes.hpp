#pragma once
// One 2-D convolution problem: the shapes a selector predicate receives.
#include <cstdint>
#include <string>

namespace netcl {

// NCHW input, K x C/groups x R x S weights, N x K x P x Q output. Padding
// may differ on every side (ONNX's pads = [top, left, bottom, right]).
struct ConvShapes {
    std::int64_t N = 1, C = 1, H = 1, W = 1;  // input
    std::int64_t K = 1, R = 1, S = 1;         // output channels, filter height, width
    std::int64_t stride_h = 1, stride_w = 1;
    std::int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
    std::int64_t dilation_h = 1, dilation_w = 1;
    std::int64_t groups = 1;
    bool bias = false;

    void set_padding(std::int64_t all) { set_padding(all, all); }
    void set_padding(std::int64_t height, std::int64_t width) { set_padding(height, width, height, width); }
    void set_padding(std::int64_t top, std::int64_t left, std::int64_t bottom, std::int64_t right) {
        pad_top = top, pad_left = left, pad_bottom = bottom, pad_right = right;
    }
    bool symmetric_padding() const { return pad_top == pad_bottom && pad_left == pad_right; }

    std::int64_t P() const;  // output height
    std::int64_t Q() const;  // output width
    std::int64_t input_numel() const { return N * C * H * W; }
    std::int64_t output_numel() const { return N * K * P() * Q(); }
    std::int64_t weight_numel() const { return K * (C / groups) * R * S; }
    // 2·N·K·(C/groups)·R·S·P·Q: the direct-convolution count the papers use.
    double direct_flops() const;

    // Throws netcl::Error naming the first field that makes no convolution.
    void validate() const;
    // "N=1 C=64 H=224 W=224 K=64 R=3 S=3 stride=1 pad=1 dil=1 groups=1";
    // uneven padding as "pad=top,left,bottom,right".
    std::string str() const;
    bool operator==(const ConvShapes&) const = default;
};

}  // namespace netcl
