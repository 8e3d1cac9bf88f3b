#include "ops/im2col/Im2colGemmConfig.hpp"

#include <algorithm>

#include "ops/gemm/PanelGemm.hpp"
#include "ops/internal/OutputStage.hpp"
#include "ops/internal/Panels.hpp"

namespace netcl {

Im2colGemmConfig im2col_gemm_config(const ConvShapes& s, const DeviceProfile& profile) {
    Im2colGemmConfig c;
    c.layout = im2col_layout(s, profile);
    c.tile = gemm_tile(profile, "im2col_gemm", gemm_tile(profile, "gemm", GemmTile{6, 2, 8, {8, 2}}));
    c.edge_m = s.K / s.groups < c.tile.mr;
    c.edge_n = s.P() * s.Q() < c.tile.nr();
    c.bias = s.bias;
    c.post_ops = s.post_ops;
    c.images_per_pass = c.layout.images_per_pass;
    // In panels where the profile's im2col_gemm_panels_max_pixels or _max_channels says (selector thresholds:
    // the selector ranks im2col-gemm first there, and says what was measured; a reduction short enough for
    // im2col_gemm_max_reduction keeps its rows): the same pass target, over the panels' bytes an image.
    const std::int64_t channels = s.C / s.groups;  // forward shapes only: backward data arrives as its phases
    const bool few_channels = s.R * s.S > 1 &&
                              static_cast<double>(channels) <= profile.tuned_or("im2col_gemm_panels_max_channels", 0.0) &&
                              static_cast<double>(channels * s.R * s.S) > profile.tuned_or("im2col_gemm_max_reduction", 0.0);
    c.panels = !c.layout.direct && s.groups == 1 &&
               (static_cast<double>(s.P() * s.Q()) <= profile.tuned_or("im2col_gemm_panels_max_pixels", 0.0) ||
                few_channels);
    if (c.panels) {
        c.edge_n = false;
        // Where the weights are new every run (a training forward) the pack is a pass over them every step
        // (2.4 M floats for res5's 3x3), which one image of 49 pixels cannot carry; the GEMM reads them
        // row-major where they lie instead (A in place, B in panels, as the 1x1 GEMM's training forward).
        // On 2 Zen 3 cores (netcl-bench --shape ... --direction train, 3 pairs of alternating processes, ms
        // netcl, ratio to the best oneDNN of the same run), packed / in place: res5's 3x3 stride 2 at N = 1
        // 6.71, 7.72, 6.26 (0.44-0.50x) / 2.34, 2.35, 3.71 (1.04-1.15x), at N = 8 0.94-1.07x / 1.17-1.28x;
        // res4's at N = 1 0.67-0.73x / 1.04-1.07x; res5's 3x3 at N = 2 0.76-0.92x / 1.13-1.18x; the stem
        // level. float32 only: a float16 layer's weights need a float32 copy every step anyway, and the pack
        // is that copy.
        // A forward problem's only: backward data reaches this config as its stride phases, whose rotated
        // filters are netcl's own copy, packed as they are made.
        c.weights_in_place = s.direction == ConvDirection::FORWARD && s.dtype == DataType::FLOAT32 &&
                             s.new_weights_every_run() &&
                             profile.tuned_or("im2col_gemm_training_weights_in_place", 0.0) > 0.0;
        c.images_per_pass = internal::panel_gemm_images_per_pass(
            s, c.tile, std::min(im2col_pass_bytes(profile), im2col_workspace_limit(profile)));
    }
    // A GEMM launch writes a group of a pass's images.
    c.stream_output = internal::stream_output(
        profile, static_cast<std::size_t>(c.images_per_pass * (s.K / s.groups) * s.P() * s.Q()) * size_of(s.dtype),
        s.post_ops, s.dtype);
    return c;
}

std::size_t Im2colGemmConfig::workspace_bytes(const ConvShapes& s) const {
    return panels ? internal::panel_gemm_workspace_bytes(s, tile, images_per_pass) : layout.workspace_bytes;
}

std::size_t Im2colGemmConfig::weight_floats(const ConvShapes& s) const {
    if (packs_weights()) return internal::row_panel_floats(1, s.K, s.C * s.R * s.S, tile.mr);
    return layout.dtype == DataType::FLOAT16 ? static_cast<std::size_t>(s.weight_numel()) : 0;
}

ProgramSpec Im2colGemmConfig::gemm_program() const {
    // A the weights in float32 (a float16 layer's widened at set_weights: a
    // half A converted a lone element at each step held VGG's conv1.1 GEMM
    // at 6.0 ms against float32's 2.0 on Zen 3), C the output in the layer's
    // type; B the float32 columns, or x itself when the layer is 1x1 and the
    // input is the column matrix.
    const DataType type = layout.dtype;
    return netcl::gemm_program(tile, edge_m, edge_n, bias, 0, false, false, post_ops,
                               {DataType::FLOAT32, layout.direct ? type : DataType::FLOAT32, type},
                               {packs_weights(), panels, false, 0, false, false, stream_output});
}

std::string Im2colGemmConfig::str() const {
    if (panels) {
        return std::to_string(images_per_pass) +
               (weights_in_place ? " image(s) per pass, columns in panels, weights read in place, GEMM "
                                 : " image(s) per pass, columns and weights in panels, GEMM ") +
               tile.str() + (stream_output ? internal::kStreamedOutputs : "");
    }
    return (layout.direct ? std::string("1x1: the input is the column matrix")
                          : std::to_string(layout.images_per_pass) + " image(s) per pass, workspace " +
                                std::to_string(layout.workspace_bytes) + " bytes" +
                                (layout.by_rows ? ", columns a row a work-item" : "")) +
           ", GEMM " + tile.str() + (stream_output ? internal::kStreamedOutputs : "");
}

}  // namespace netcl
