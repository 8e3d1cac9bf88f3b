#include "ops/weight_gradient/ClblastWeightGradientConfig.hpp"

#include <algorithm>

namespace netcl {

namespace {
// Untuned defaults, sized from the H100 (132 SMs x 2048 threads: 2^22
// outputs is ~16 an SM thread; a piece of 256 pixels still amortises the
// GEMM's tile loads). Not yet measured against other values.
constexpr double kSplitOutputs = 4194304.0;
constexpr double kMinChunk = 256.0;
}  // namespace

ClblastWeightGradientConfig clblast_weight_gradient_config(const ConvShapes& s, const DeviceProfile& profile) {
    ClblastWeightGradientConfig c;
    c.half = s.dtype == DataType::FLOAT16;
    c.layout = c.half ? im2col_layout_expanded(s, profile) : im2col_layout(s, profile);
    const std::int64_t pixels = s.P() * s.Q();
    const auto outputs = static_cast<double>(s.K) * static_cast<double>(s.C / s.groups * s.R * s.S);
    const double target = profile.tuned_or("wgrad_clblast_split_outputs", kSplitOutputs);
    const auto min_chunk = static_cast<std::int64_t>(std::max(1.0, profile.tuned_or("wgrad_clblast_min_chunk", kMinChunk)));
    const auto wanted = static_cast<std::int64_t>(std::max(1.0, target / std::max(outputs, 1.0)));
    c.chunks = std::max<std::int64_t>(1, std::min(wanted, pixels / min_chunk));
    c.chunk_pixels = (pixels + c.chunks - 1) / c.chunks;
    c.chunks = (pixels + c.chunk_pixels - 1) / c.chunk_pixels;  // no empty last piece
    if (c.writes_partials()) {
        c.partials_bytes = static_cast<std::size_t>(c.chunks) * static_cast<std::size_t>(outputs) * sizeof(float);
    }
    if (c.half) c.dy_bytes = static_cast<std::size_t>(s.K * pixels) * sizeof(float);
    return c;
}

std::string ClblastWeightGradientConfig::str() const {
    std::string out = layout.direct ? "1x1: x is the column matrix"
                                    : std::to_string(layout.images_per_pass) + " image(s) of columns a pass";
    if (half) {
        out += "; dy widened to float32 an image at a time; " +
               (chunks == 1 ? std::string("one CLBlast GEMM an image")
                            : "an image's pixels in " + std::to_string(chunks) + " pieces of " +
                                  std::to_string(chunk_pixels) + ", a CLBlast GEMM each (one batched call)") +
               ", every image added into float32 partials, stored into the half dw once";
    } else {
        out += chunks == 1 ? "; one CLBlast GEMM an image, summed into dw in order"
                           : "; an image's pixels in " + std::to_string(chunks) + " pieces of " +
                                 std::to_string(chunk_pixels) +
                                 ", a CLBlast GEMM each into float32 partials (one batched call), summed into dw in order";
    }
    if (workspace_bytes() > 0) out += "; workspace " + std::to_string(workspace_bytes()) + " bytes";
    return out;
}

}  // namespace netcl
