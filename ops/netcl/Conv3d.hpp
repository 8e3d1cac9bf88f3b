#pragma once
// A 3-D convolution layer (video and volumetric networks: C3D, I3D, 3-D
// ResNets and U-Nets), as a framework's Conv3d op holds it.
#include <array>
#include <cstdint>
#include <optional>

#include "netcl/ConvLayer.hpp"

namespace netcl {

// Zero padding of a 3-D layer. {p} pads every side by p, {d, h, w} pads each
// axis on both sides (PyTorch), or each of the six sides on its own (ONNX's
// pads, reordered: ONNX lists the three begins, then the three ends).
struct Padding3d {
    std::int64_t front = 0, top = 0, left = 0, back = 0, bottom = 0, right = 0;

    constexpr Padding3d() = default;
    constexpr Padding3d(std::int64_t all)  // NOLINT
        : front(all), top(all), left(all), back(all), bottom(all), right(all) {}
    constexpr Padding3d(std::int64_t depth, std::int64_t height, std::int64_t width)
        : front(depth), top(height), left(width), back(depth), bottom(height), right(width) {}
    constexpr Padding3d(std::int64_t front_, std::int64_t top_, std::int64_t left_, std::int64_t back_,
                        std::int64_t bottom_, std::int64_t right_)
        : front(front_), top(top_), left(left_), back(back_), bottom(bottom_), right(right_) {}
    bool operator==(const Padding3d&) const = default;
};

// Parameters as PyTorch's nn.Conv3d takes them; spatial arrays are {depth,
// height, width}. The fields after `bias` mean what Conv2dOptions' do.
struct Conv3dOptions {
    std::int64_t in_channels = 0;
    std::int64_t out_channels = 0;
    std::array<std::int64_t, 3> kernel{3, 3, 3};
    std::array<std::int64_t, 3> stride{1, 1, 1};
    Padding3d padding;                  // used when auto_pad is NOTSET
    AutoPad auto_pad = AutoPad::NOTSET;
    std::array<std::int64_t, 3> dilation{1, 1, 1};
    std::int64_t groups = 1;
    bool bias = true;
    // The storage type of x, weights, bias, y and the gradients, all one
    // type; arithmetic is float32 either way (float16 is read and written
    // with vload_half/vstore_half, so no device needs cl_khr_fp16). A tensor
    // of another type is a netcl::Error.
    DataType dtype = DataType::FLOAT32;
    PostOps post_ops;
    std::optional<Kernel> strategy;
    std::optional<Variant> variant;
    std::optional<std::size_t> workspace_limit_bytes;
    std::optional<double> max_error_factor;
    KernelSelector* selector = nullptr;

    // The options of a layer computing `shapes` (a rank-3 problem).
    static Conv3dOptions for_shapes(const ConvShapes& shapes);
};

// NCDHW in (N x C x D x H x W), NCDHW out (N x K x O x P x Q), weights K x
// C/groups x T x R x S; every method is ConvLayer's (ops/netcl/ConvLayer.hpp).
// The selector plans it under "conv3d", "conv3d_backward_data" and
// "conv3d_backward_weights".
class Conv3d : public ConvLayer {
public:
    Conv3d(std::shared_ptr<Context> context, Conv3dOptions options);
    const Conv3dOptions& options() const { return options_; }

private:
    Conv3dOptions options_;
};

}  // namespace netcl
