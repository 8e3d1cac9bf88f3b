#pragma once
#include <cstdint>
#include <string>

namespace netcl {

// One 2-D convolution problem, NCHW input, K x C/groups x R x S weights.
struct ConvShapes {
    std::int64_t N = 1, C = 1, H = 1, W = 1;  // input
    std::int64_t K = 1, R = 1, S = 1;         // output channels, filter height, width
    std::int64_t stride_h = 1, stride_w = 1;
    std::int64_t pad_h = 0, pad_w = 0;
    std::int64_t dilation_h = 1, dilation_w = 1;
    std::int64_t groups = 1;
    bool bias = false;

    std::int64_t P() const;  // output height
    std::int64_t Q() const;  // output width
    std::int64_t input_numel() const { return N * C * H * W; }
    std::int64_t output_numel() const { return N * K * P() * Q(); }
    std::int64_t weight_numel() const { return K * (C / groups) * R * S; }
    // 2·N·K·(C/groups)·R·S·P·Q: the direct-convolution count the papers use.
    double direct_flops() const;

    // Throws netcl::Error naming the first field that makes no convolution.
    void validate() const;
    // "N=1 C=64 H=224 W=224 K=64 R=3 S=3 stride=1 pad=1 dil=1 groups=1"
    std::string str() const;
    bool operator==(const ConvShapes&) const = default;
};

}  // namespace netcl
