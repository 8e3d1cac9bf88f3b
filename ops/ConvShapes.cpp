#include "ops/ConvShapes.hpp"

#include <utility>

#include "runtime/Error.hpp"

namespace netcl {

std::int64_t ConvShapes::P() const { return (H + 2 * pad_h - dilation_h * (R - 1) - 1) / stride_h + 1; }
std::int64_t ConvShapes::Q() const { return (W + 2 * pad_w - dilation_w * (S - 1) - 1) / stride_w + 1; }

double ConvShapes::direct_flops() const {
    return 2.0 * static_cast<double>(N) * K * (C / groups) * R * S * static_cast<double>(P()) * Q();
}

std::string ConvShapes::str() const {
    auto pair = [](std::int64_t a, std::int64_t b) {
        return a == b ? std::to_string(a) : std::to_string(a) + "x" + std::to_string(b);
    };
    return "N=" + std::to_string(N) + " C=" + std::to_string(C) + " H=" + std::to_string(H) +
           " W=" + std::to_string(W) + " K=" + std::to_string(K) + " R=" + std::to_string(R) +
           " S=" + std::to_string(S) + " stride=" + pair(stride_h, stride_w) + " pad=" + pair(pad_h, pad_w) +
           " dil=" + pair(dilation_h, dilation_w) + " groups=" + std::to_string(groups);
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
    if (pad_h < 0 || pad_w < 0) throw Error("convolution padding is negative in " + str() + "; expected >= 0");
    // Kernels index with 32-bit ints, and the extent arithmetic below must not
    // overflow: every field stays below 2^31.
    constexpr std::int64_t kMaxField = (std::int64_t{1} << 31) - 1;
    for (const auto& [value, name] : {std::pair{N, "N"}, {C, "C"}, {H, "H"}, {W, "W"}, {K, "K"}, {R, "R"}, {S, "S"},
                                      {stride_h, "stride"}, {stride_w, "stride"}, {pad_h, "padding"},
                                      {pad_w, "padding"}, {dilation_h, "dilation"}, {dilation_w, "dilation"},
                                      {groups, "groups"}}) {
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
    if (extent_h > H + 2 * pad_h || extent_w > W + 2 * pad_w) {
        throw Error("the dilated kernel (" + std::to_string(extent_h) + "x" + std::to_string(extent_w) +
                    ") is larger than the padded input (" + std::to_string(H + 2 * pad_h) + "x" +
                    std::to_string(W + 2 * pad_w) + ") in " + str() + "; expected a kernel that fits");
    }
}

}  // namespace netcl
