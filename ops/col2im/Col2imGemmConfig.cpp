#include "ops/col2im/Col2imGemmConfig.hpp"

#include <algorithm>

#include "ops/internal/Panels.hpp"
#include "ops/internal/WorkspaceLimit.hpp"
#include "ops/internal/Storage.hpp"
#include "runtime/EmbeddedSources.hpp"

namespace netcl {

namespace {
std::size_t size(std::int64_t v) { return static_cast<std::size_t>(v); }
std::int64_t blocks(std::int64_t n, std::int64_t block) { return (n + block - 1) / block; }
std::int64_t taps(const ConvShapes& s) { return s.C / s.groups * s.R * s.S; }
}  // namespace

internal::ColumnSource col2im_dy_source(const ConvShapes& s) {
    internal::ColumnSource dy;  // an image of dy as a 1x1 layer's input: K planes of P x Q
    dy.channels = s.K, dy.H = dy.P = s.P(), dy.W = dy.Q = s.Q(), dy.image_stride = s.K * s.P() * s.Q();
    return dy;
}

std::size_t col2im_gemm_workspace_limit(const DeviceProfile& profile) {
    return internal::workspace_limit(profile, "col2im_gemm_workspace_limit_bytes");
}

Col2imGemmConfig col2im_gemm_config(const ConvShapes& s, const DeviceProfile& profile) {
    Col2imGemmConfig c;
    c.dtype = s.dtype;
    c.tile = gemm_tile(profile, "col2im_gemm", gemm_tile(profile, "gemm", GemmTile{6, 2, 8, {8, 2}}));
    c.edge_m = taps(s) < c.tile.mr;
    c.edge_n = s.P() * s.Q() < c.tile.nr();
    c.columns_bytes = size(s.C * s.R * s.S * s.P() * s.Q()) * sizeof(float);
    // On 2 Zen 3 cores (PoCL 3.1, NETCL_KTRACE event times, an image of ResNet's stem at N = 8): the GEMM
    // W^T dy (147 x 64 x 12544) 3.4-5.0 ms with dy read in place, 1.9 on the panels plus 0.6 to pack dy (its
    // col2im gather 2.1-3.0 either way).
    // Over few columns (res5's 3x3 layers: 49 of dy at N = 1) the panels are mostly the pass that packs W^T,
    // 2.4 M floats for res5's, every step: there W is read in place (col2im_gemm_in_place_max_columns), which
    // lets the selector's few-columns rule put backward data here (selector/VariantChoice.cpp). On the same
    // Zen 3 (netcl-bench --net resnet50 --direction train, N = 1, one run each, ms): res5's 3x3 15.57 on the
    // implicit GEMM, where the rule had left it, -> 5.19; its 3x3 stride 2 13.43 -> 5.61. ResNet's stem
    // (12544 columns an image) keeps its panels, measured above.
    const auto columns = static_cast<double>(s.output_pixels());
    c.panels = s.groups == 1 && profile.tuned_or("col2im_gemm_panels", 0.0) != 0.0 &&
               columns > profile.tuned_or("col2im_gemm_in_place_max_columns", 0.0);
    if (c.panels) {
        c.edge_n = false;
        c.panel_bytes = internal::column_panel_floats(col2im_dy_source(s), c.tile.nr()) * sizeof(float);
    }
    // dy read in place: a tile's columns are a short run in each of K planes (the 1x1 GEMM's x likewise:
    // kernels_cl/gemm.cl, PREFETCH_B). On 2 cores of an Intel Xeon, ResNet's stem at N = 8 (netcl-bench
    // --shape --direction bwd_data, netcl / the best oneDNN 3.2, 2 pairs of alternating processes, kernel
    // sources swapped): 0.58, 0.59 -> 0.67, 0.74x; with dy in panels (col2im_gemm_panels) 0.59, 0.70x.
    // A CPU's build option, as the 1x1 GEMM's (ops/gemm/Gemm1x1Config.cpp).
    if (profile.type == DeviceType::CPU && !c.panels && !c.edge_n) {
        c.prefetch_dy_rows =
            static_cast<int>(std::clamp(profile.tuned_or("col2im_gemm_prefetch_dy_rows", 0.0), 0.0, 64.0));
    }
    c.weights_in_place = !c.panels && s.dtype == DataType::FLOAT32;
    if (profile.type == DeviceType::CPU && c.weights_in_place) {
        c.prefetch_w_steps =
            static_cast<int>(std::clamp(profile.tuned_or("col2im_gemm_prefetch_w_steps", 0.0), 0.0, 64.0));
    }
    c.weights_bytes = c.weights_in_place ? 0
                      : (c.panels ? internal::row_panel_floats(1, taps(s), s.K, c.tile.mr) : size(s.weight_numel())) *
                            sizeof(float);
    return c;
}

cl::NDRange Col2imGemmConfig::transpose_global(const ConvShapes& s) const {
    // im2col_patches over W as an image of K channels of C/groups·R·S pixels, runs of 16.
    return cl::NDRange(size(s.K / s.groups), size(blocks(taps(s), 16)), size(s.groups));
}

cl::NDRange Col2imGemmConfig::gemm_global(const ConvShapes& s) const {
    return cl::NDRange(size(blocks(s.P() * s.Q(), tile.nr())), size(blocks(taps(s), tile.mr)), size(s.groups));
}

cl::NDRange Col2imGemmConfig::col2im_global(const ConvShapes& s) const {
    return cl::NDRange(size(s.W), size(s.H), size(s.C));
}

std::vector<ProgramSpec> Col2imGemmConfig::programs() const {
    // W^T (A) and the columns (C) float32, dy (B) in the layer's type.
    const std::string storage = internal::storage_options(dtype);
    std::vector<ProgramSpec> specs = {
        {"im2col", internal::storage_source() + embedded_source("im2col"), storage,
         {{"im2col_patches", {4, 16, 1}}, {"col2im", {64, 1, 1}}}},
        gemm_program(tile, edge_m, edge_n, /*bias=*/false, 0, false, false, {},
                     {DataType::FLOAT32, panels ? DataType::FLOAT32 : dtype, DataType::FLOAT32},
                     {.a_panels = panels, .b_across_images = panels, .prefetch_b_rows = prefetch_dy_rows,
                      .a_transposed = weights_in_place, .prefetch_a_rows = prefetch_w_steps})};
    if (panels) {
        specs.push_back(internal::panels_program(DataType::FLOAT32));
        if (dtype != DataType::FLOAT32) specs.push_back(internal::panels_program(dtype));
    }
    return specs;
}

std::string Col2imGemmConfig::str() const {
    return std::string("an image's columns a pass") + (panels ? ", W^T and dy in panels" : "") +
           (weights_in_place ? ", W read transposed in place" : "") +
           (prefetch_w_steps > 0 ? " (prefetched " + std::to_string(prefetch_w_steps) + " steps ahead)" : "") + ", workspace " +
           std::to_string(workspace_bytes()) + " bytes, GEMM " + tile.str() +
           (edge_m ? ", rows clamped" : "") + (edge_n ? ", columns clamped" : "") +
           (prefetch_dy_rows > 0 ? ", dy prefetched " + std::to_string(prefetch_dy_rows) + " channels ahead" : "");
}

}  // namespace netcl
