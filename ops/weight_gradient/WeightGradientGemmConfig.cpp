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

WeightGradientGemmConfig weight_gradient_gemm_config(const ConvShapes& s, const DeviceProfile& profile) {
    WeightGradientGemmConfig c;
    c.dtype = s.dtype;
    c.tile = gemm_tile(profile, "wgrad_gemm", gemm_tile(profile, "gemm", GemmTile{6, 2, 8, {8, 2}}));
    c.edge_m = s.K / s.groups < c.tile.mr;
    c.edge_n = patch_length(s) < c.tile.nr();
    const std::int64_t PQ = s.P() * s.Q();
    const auto patch_row_bytes = size(s.C * s.R * s.S) * sizeof(float);  // one pixel's patches, all groups
    const auto chunk_target = static_cast<std::size_t>(
        profile.tuned_or("wgrad_gemm_chunk_bytes", static_cast<double>(kWeightGradientChunkBytes)));
    // Whole chunks of near-equal size: ceil(PQ / most) chunks, spread evenly.
    const std::int64_t most = std::clamp<std::int64_t>(static_cast<std::int64_t>(chunk_target / patch_row_bytes), 1, PQ);
    c.chunks_per_image = blocks(PQ, most);
    c.chunk_pixels = blocks(PQ, c.chunks_per_image);
    c.patches_bytes = size(c.chunk_pixels) * patch_row_bytes;
    const auto partial_bytes = size(s.weight_numel()) * sizeof(float);
    const auto pass_target = static_cast<std::size_t>(
        profile.tuned_or("wgrad_gemm_pass_bytes", static_cast<double>(kWeightGradientPassBytes)));
    const std::size_t budget = std::min(pass_target, weight_gradient_workspace_limit(profile));
    const std::size_t room = budget > c.patches_bytes ? budget - c.patches_bytes : 0;
    c.chunks_per_pass = std::clamp<std::int64_t>(static_cast<std::int64_t>(room / partial_bytes), 1, c.chunks(s));
    c.workspace_bytes = c.patches_bytes + partial_bytes * size(c.chunks_per_pass);
    return c;
}

cl::NDRange WeightGradientGemmConfig::patches_global(const ConvShapes& s, std::int64_t pixels) const {
    return cl::NDRange(size(patch_length(s)), size(blocks(pixels, kWeightGradientPatchRun)), size(s.groups));
}

cl::NDRange WeightGradientGemmConfig::gemm_global(const ConvShapes& s) const {
    return cl::NDRange(size(blocks(patch_length(s), tile.nr())), size(blocks(s.K / s.groups, tile.mr)),
                       size(s.groups));
}

std::vector<ProgramSpec> WeightGradientGemmConfig::programs() const {
    // dy (A) in the layer's type, the patches (B) and partial sums (C) float32.
    const std::string storage = internal::storage_options(dtype);
    return {{"im2col", internal::storage_source() + embedded_source("im2col"), storage, {{"im2col_patches", {4, 16, 1}}}},
            gemm_program(tile, edge_m, edge_n, /*bias=*/false, 0, false, false, {}, {dtype, DataType::FLOAT32, DataType::FLOAT32}),
            {"gradient_sums", internal::storage_source() + embedded_source("gradient_sums"), storage,
             {internal::sum_partials_kernel(), internal::bias_gradient_kernel()}}};
}

std::string WeightGradientGemmConfig::str() const {
    return std::to_string(chunks_per_image) + " chunk(s) of " + std::to_string(chunk_pixels) +
           " pixels an image, " + std::to_string(chunks_per_pass) + " summed a pass, workspace " +
           std::to_string(workspace_bytes) + " bytes, GEMM " + tile.str() + (edge_m ? ", rows clamped" : "") +
           (edge_n ? ", columns clamped" : "");
}

}  // namespace netcl
