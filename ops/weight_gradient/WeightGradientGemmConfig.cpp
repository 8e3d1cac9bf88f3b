#include "ops/weight_gradient/WeightGradientGemmConfig.hpp"

#include <algorithm>

#include "ops/internal/GradientSums.hpp"
#include "ops/internal/Storage.hpp"
#include "runtime/EmbeddedSources.hpp"

namespace netcl {

namespace {
std::size_t size(std::int64_t v) { return static_cast<std::size_t>(v); }
std::int64_t blocks(std::int64_t n, std::int64_t block) { return (n + block - 1) / block; }
std::int64_t patch_length(const ConvShapes& s) { return s.C / s.groups * s.R * s.S; }
}  // namespace

std::size_t weight_gradient_workspace_limit(const DeviceProfile& profile) {
    const double fallback =
        profile.max_alloc_bytes ? static_cast<double>(profile.max_alloc_bytes) / 4 : 256.0 * (1 << 20);
    return static_cast<std::size_t>(profile.tuned_or("wgrad_gemm_workspace_limit_bytes", fallback));
}

// x's patches are x itself (transposed) where the layer is 1x1, stride 1 and
// unpadded; dy is then copied in their place where its rows are at most
// wgrad_gemm_dy_copy_max_ratio times as long (K/groups against C/groups),
// default 1. ResNet-50's 1x1 layers at N = 8, x's patches / dy copied, ms
// (Zen 3, two alternating runs each): 256 -> 64 at 56x56 19.8, 23.5 /
// 11.1, 11.5; 512 -> 128 at 28x28 16.4, 16.7 / 9.9, 10.2; 1024 -> 256 at
// 14x14 18.4, 14.5 / 8.6, 9.0; K = C (64 at 56x56) and 2048 -> 512 at 7x7
// level within the noise; 64 -> 256 (K = 4C) 15.2 / 23.8.
namespace {
bool copies_dy(const ConvShapes& s, const DeviceProfile& profile) {
    const bool x_in_place = s.R == 1 && s.S == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_top == 0 &&
                            s.pad_bottom == 0 && s.pad_left == 0 && s.pad_right == 0;
    const double ratio = profile.tuned_or("wgrad_gemm_dy_copy_max_ratio", 1.0);
    return x_in_place && static_cast<double>(s.K) <= ratio * static_cast<double>(s.C);
}
}  // namespace

std::int64_t WeightGradientGemmConfig::gemm_rows(const ConvShapes& s) const {
    return copy_dy ? s.C / s.groups : s.K / s.groups;
}

std::int64_t WeightGradientGemmConfig::gemm_columns(const ConvShapes& s) const {
    return copy_dy ? s.K / s.groups : patch_length(s);
}

WeightGradientGemmConfig weight_gradient_gemm_config(const ConvShapes& s, const DeviceProfile& profile) {
    WeightGradientGemmConfig c;
    c.dtype = s.dtype;
    c.copy_dy = copies_dy(s, profile);
    c.tile = gemm_tile(profile, "wgrad_gemm", gemm_tile(profile, "gemm", GemmTile{6, 2, 8, {8, 2}}));
    c.edge_m = c.gemm_rows(s) < c.tile.mr;
    c.edge_n = c.gemm_columns(s) < c.tile.nr();
    const std::int64_t PQ = s.P() * s.Q();
    // One pixel's patches, all groups.
    const auto patch_row_bytes = size(c.gemm_columns(s) * s.groups) * sizeof(float);
    const auto chunk_target = static_cast<std::size_t>(
        profile.tuned_or("wgrad_gemm_chunk_bytes", static_cast<double>(kWeightGradientChunkBytes)));
    // Whole chunks of near-equal size: ceil(PQ / most) chunks, spread evenly.
    const std::int64_t most = std::clamp<std::int64_t>(static_cast<std::int64_t>(chunk_target / patch_row_bytes), 1, PQ);
    c.chunks_per_image = blocks(PQ, most);
    c.chunk_pixels = blocks(PQ, c.chunks_per_image);
    c.patches_bytes = size(c.chunk_pixels) * patch_row_bytes;
    c.workspace_bytes = c.patches_bytes + size(s.weight_numel()) * sizeof(float);
    return c;
}

cl::NDRange WeightGradientGemmConfig::patches_global(const ConvShapes& s, std::int64_t pixels) const {
    return cl::NDRange(size(gemm_columns(s)), size(blocks(pixels, kWeightGradientPatchRun)), size(s.groups));
}

cl::NDRange WeightGradientGemmConfig::gemm_global(const ConvShapes& s) const {
    return cl::NDRange(size(blocks(gemm_columns(s), tile.nr())), size(blocks(gemm_rows(s), tile.mr)),
                       size(s.groups));
}

std::vector<ProgramSpec> WeightGradientGemmConfig::programs() const {
    // dy (A; x with copy_dy) in the layer's type, the patches (B) and partial sums (C) float32.
    const std::string storage = internal::storage_options(dtype);
    return {{"im2col", internal::storage_source() + embedded_source("im2col"), storage, {{"im2col_patches", {4, 16, 1}}}},
            gemm_program(tile, edge_m, edge_n, /*bias=*/false, 0, false, false, {}, {dtype, DataType::FLOAT32, DataType::FLOAT32}),
            gemm_program(tile, edge_m, edge_n, /*bias=*/false, 0, false, false, PostOps{}.with_sum(),
                         {dtype, DataType::FLOAT32, DataType::FLOAT32}),
            {"gradient_sums", internal::storage_source() + embedded_source("gradient_sums"), storage,
             {internal::blend_weight_gradient_kernel(), internal::bias_gradient_kernel()}}};
}

std::string WeightGradientGemmConfig::str() const {
    return std::string(copy_dy ? "x in place, dy copied transposed, " : "") + std::to_string(chunks_per_image) +
           " chunk(s) of " + std::to_string(chunk_pixels) +
           " pixels an image, workspace " +
           std::to_string(workspace_bytes) + " bytes, GEMM " + tile.str() + (edge_m ? ", rows clamped" : "") +
           (edge_n ? ", columns clamped" : "");
}

}  // namespace netcl
