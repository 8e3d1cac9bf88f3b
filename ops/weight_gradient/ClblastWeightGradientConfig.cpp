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
    c.pixels = pixels;
    const auto outputs = static_cast<double>(s.K) * static_cast<double>(s.C / s.groups * s.R * s.S);
    const double target = profile.tuned_or("wgrad_clblast_split_outputs", kSplitOutputs);
    const auto min_chunk = static_cast<std::int64_t>(std::max(1.0, profile.tuned_or("wgrad_clblast_min_chunk", kMinChunk)));
    const auto wanted = static_cast<std::int64_t>(std::max(1.0, target / std::max(outputs, 1.0)));
    // Images in slots of their own first (no piece's reduction gets shorter), within a pass; a large dW
    // (VGG's conv5: 2.4 M elements) keeps one slot and its workspace small. A call's operands (an image's
    // dy and columns each) stay within a pass's bytes: CLBlast pads each operand of a batched call into a
    // buffer of its own, batch x its size, which no workspace counts (a 1x1 layer's pass is every image).
    const double image_operands = static_cast<double>((s.K + s.C * s.R * s.S) * pixels) * sizeof(float);
    const auto operands_fit =
        static_cast<std::int64_t>(static_cast<double>(im2col_pass_bytes(profile)) / std::max(image_operands, 1.0));
    c.slot_images = std::clamp<std::int64_t>(std::min(wanted, operands_fit), 1, c.layout.images_per_pass);
    c.chunks = std::max<std::int64_t>(1, std::min(wanted / c.slot_images, pixels / min_chunk));
    c.chunk_pixels = (pixels + c.chunks - 1) / c.chunks;
    c.chunks = (pixels + c.chunk_pixels - 1) / c.chunk_pixels;  // no empty last piece
    if (c.writes_partials()) {
        c.partials_bytes = static_cast<std::size_t>(c.slots()) * static_cast<std::size_t>(outputs) * sizeof(float);
    }
    if (c.half) c.dy_bytes = static_cast<std::size_t>(c.slot_images * s.K * pixels) * sizeof(float);
    return c;
}

std::string ClblastWeightGradientConfig::str() const {
    std::string out = layout.direct ? "1x1: x is the column matrix"
                                    : std::to_string(layout.images_per_pass) + " image(s) of columns a pass";
    const std::string pieces = chunks == 1 ? std::string("each image whole")
                                           : "an image's pixels in " + std::to_string(chunks) + " pieces of " +
                                                 std::to_string(chunk_pixels);
    const std::string batch = std::to_string(slot_images) + " images";
    if (half) out += "; dy widened to float32 a batch at a time";
    if (!writes_partials()) {
        out += "; one CLBlast GEMM an image, summed into dw in order";
    } else {
        out += "; " + pieces + ", CLBlast GEMMs into " + std::to_string(slots()) + " float32 partial(s) (" +
               (slot_images == 1          ? std::string("every image adding into them")
                : call_per_piece(slot_images) ? "a call a piece over " + batch + ", later images adding into their slots"
                                              : "a call an image, " + batch + "' slots, later images adding into them") +
               "), summed into " + (half ? "the half dw" : "dw") + " once";
    }
    if (workspace_bytes() > 0) out += "; workspace " + std::to_string(workspace_bytes()) + " bytes";
    return out;
}

}  // namespace netcl
