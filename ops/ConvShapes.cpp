#include "netcl/ConvShapes.hpp"

#include <utility>

#include "netcl/Error.hpp"

namespace netcl {

std::int64_t ConvShapes::P() const { return (H + pad_top + pad_bottom - dilation_h * (R - 1) - 1) / stride_h + 1; }
std::int64_t ConvShapes::Q() const { return (W + pad_left + pad_right - dilation_w * (S - 1) - 1) / stride_w + 1; }
std::int64_t ConvShapes::O() const { return (D + pad_front + pad_back - dilation_d * (T - 1) - 1) / stride_d + 1; }

std::vector<std::int64_t> ConvShapes::input_shape() const {
    if (spatial_rank == 3) return {N, C, D, H, W};
    return {N, C, H, W};
}
std::vector<std::int64_t> ConvShapes::output_shape() const {
    if (spatial_rank == 3) return {N, K, O(), P(), Q()};
    return {N, K, P(), Q()};
}
std::vector<std::int64_t> ConvShapes::weight_shape() const {
    if (spatial_rank == 3) return {K, C / groups, T, R, S};
    return {K, C / groups, R, S};
}

double ConvShapes::direct_flops() const {
    return 2.0 * static_cast<double>(N) * K * (C / groups) * T * R * S * static_cast<double>(O()) * P() * Q();
}

std::string ConvShapes::str() const {
    auto pair = [](std::int64_t a, std::int64_t b) {
        return a == b ? std::to_string(a) : std::to_string(a) + "x" + std::to_string(b);
    };
    // Symmetric padding keeps the short form: tuned records are keyed by this text.
    const std::string pad = symmetric_padding() ? pair(pad_top, pad_left)
                                                : std::to_string(pad_top) + "," + std::to_string(pad_left) + "," +
                                                      std::to_string(pad_bottom) + "," + std::to_string(pad_right);
    return "N=" + std::to_string(N) + " C=" + std::to_string(C) + " H=" + std::to_string(H) +
           " W=" + std::to_string(W) + " K=" + std::to_string(K) + " R=" + std::to_string(R) +
           " S=" + std::to_string(S) + " stride=" + pair(stride_h, stride_w) + " pad=" + pad +
           " dil=" + pair(dilation_h, dilation_w) + " groups=" + std::to_string(groups) + problem_suffix();
}

std::string ConvShapes::problem_suffix() const {
    std::string text;
    if (spatial_rank != 2 || D != 1 || T != 1 || stride_d != 1 || pad_front != 0 || pad_back != 0 || dilation_d != 1) {
        text += " depth=" + std::to_string(D) + "," + std::to_string(T) + "," + std::to_string(stride_d) + "," +
                std::to_string(pad_front) + "," + std::to_string(pad_back) + "," + std::to_string(dilation_d);
    }
    if (dtype != DataType::FLOAT32) text += " dtype=" + to_string(dtype);
    if (direction != ConvDirection::FORWARD) text += " dir=" + to_string(direction);
    if (!post_ops.empty()) text += " post=" + post_ops.str();
    if (training && direction == ConvDirection::FORWARD) text += " training";
    if (weights_transposed) text += T * R * S == 1 ? " weights=iohw" : " weights=iohw,rotated";
    return text;
}

void ConvShapes::validate() const {
    auto positive = [this](std::int64_t value, const char* name) {
        if (value < 1) {
            throw Error(std::string("convolution ") + name + " = " + std::to_string(value) + " in " + str() +
                        "; expected >= 1");
        }
    };
    positive(N, "batch N");
    positive(C, "input channels C");
    positive(H, "input height H");
    positive(W, "input width W");
    positive(K, "output channels K");
    positive(R, "kernel height R");
    positive(S, "kernel width S");
    positive(stride_h, "stride (height)");
    positive(stride_w, "stride (width)");
    positive(dilation_h, "dilation (height)");
    positive(dilation_w, "dilation (width)");
    positive(groups, "groups");
    to_string(direction);  // throws for a value outside the enum
    to_string(dtype);
    post_ops.validate();
    if (!post_ops.empty() && direction != ConvDirection::FORWARD) {
        throw Error("post-ops (" + post_ops.str() + ") on a " + to_string(direction) + " problem in " + str() +
                    "; expected them on forward only (the gradients are the convolution's)");
    }
    if (weights_transposed && direction != ConvDirection::FORWARD) {
        throw Error("transposed (iohw) weights in " + str() + "; expected them on a forward problem only");
    }
    if (training && direction != ConvDirection::FORWARD) {
        throw Error("training set on a " + to_string(direction) + " problem in " + str() +
                    "; expected it on forward only (backward data always has new weights, backward weights reads none)");
    }
    if (spatial_rank != 2 && spatial_rank != 3) {
        throw Error("convolution spatial rank = " + std::to_string(spatial_rank) + " in " + str() +
                    "; expected 2 (NCHW) or 3 (NCDHW)");
    }
    if (spatial_rank == 2 &&
        (D != 1 || T != 1 || stride_d != 1 || pad_front != 0 || pad_back != 0 || dilation_d != 1)) {
        throw Error("a 2-D convolution has depth fields set in " + str() +
                    "; expected D = T = stride_d = dilation_d = 1 and no depth padding (or spatial_rank = 3)");
    }
    positive(D, "input depth D");
    positive(T, "kernel depth T");
    positive(stride_d, "stride (depth)");
    positive(dilation_d, "dilation (depth)");
    if (pad_front < 0 || pad_back < 0) {
        throw Error("convolution depth padding is negative in " + str() + "; expected >= 0 on both sides");
    }
    if (pad_top < 0 || pad_left < 0 || pad_bottom < 0 || pad_right < 0) {
        throw Error("convolution padding is negative in " + str() + "; expected >= 0 on every side");
    }
    // Kernels index with 32-bit ints, and the extent arithmetic below must not
    // overflow: every field stays below 2^31.
    constexpr std::int64_t kMaxField = (std::int64_t{1} << 31) - 1;
    for (const auto& [value, name] : {std::pair{N, "N"}, {C, "C"}, {H, "H"}, {W, "W"}, {K, "K"}, {R, "R"}, {S, "S"},
                                      {stride_h, "stride"}, {stride_w, "stride"}, {pad_top, "padding"},
                                      {pad_left, "padding"}, {pad_bottom, "padding"}, {pad_right, "padding"},
                                      {dilation_h, "dilation"}, {dilation_w, "dilation"},
                                      {groups, "groups"}, {D, "D"}, {T, "T"}, {stride_d, "stride"},
                                      {pad_front, "padding"}, {pad_back, "padding"}, {dilation_d, "dilation"}}) {
        if (value > kMaxField) {
            throw Error(std::string("convolution ") + name + " = " + std::to_string(value) + " in " + str() +
                        "; expected at most " + std::to_string(kMaxField));
        }
    }
    if (C % groups != 0 || K % groups != 0) {
        throw Error("groups = " + std::to_string(groups) + " must divide both input channels C = " +
                    std::to_string(C) + " and output channels K = " + std::to_string(K) + " (" + str() + ")");
    }
    const std::int64_t extent_h = dilation_h * (R - 1) + 1, extent_w = dilation_w * (S - 1) + 1;
    const std::int64_t extent_d = dilation_d * (T - 1) + 1;
    if (extent_d > D + pad_front + pad_back) {
        throw Error("the dilated kernel's depth (" + std::to_string(extent_d) + ") is larger than the padded input's (" +
                    std::to_string(D + pad_front + pad_back) + ") in " + str() + "; expected a kernel that fits");
    }
    if (extent_h > H + pad_top + pad_bottom || extent_w > W + pad_left + pad_right) {
        throw Error("the dilated kernel (" + std::to_string(extent_h) + "x" + std::to_string(extent_w) +
                    ") is larger than the padded input (" + std::to_string(H + pad_top + pad_bottom) + "x" +
                    std::to_string(W + pad_left + pad_right) + ") in " + str() + "; expected a kernel that fits");
    }
}

}  // namespace netcl
