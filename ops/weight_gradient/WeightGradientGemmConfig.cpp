#include "ops/weight_gradient/WeightGradientGemmConfig.hpp"

#include <algorithm>

#include "ops/internal/GradientSums.hpp"
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
    c.tile = gemm_tile(profile, "wgrad_gemm", gemm_tile(profile, "gemm", GemmTile{6, 2, 8, {8, 2}}));
    c.edge_m = s.K / s.groups < c.tile.mr;
    c.edge_n = patch_length(s) < c.tile.nr();
    const std::int64_t PQ = s.P() * s.Q();
    c.per_image_bytes = size(PQ * s.C * s.R * s.S + s.weight_numel()) * sizeof(float);
    const auto target = static_cast<std::size_t>(
        profile.tuned_or("wgrad_gemm_pass_bytes", static_cast<double>(kWeightGradientPassBytes)));
    const std::size_t budget = std::min(target, weight_gradient_workspace_limit(profile));
    c.images_per_pass = std::clamp<std::int64_t>(static_cast<std::int64_t>(budget / std::max<std::size_t>(1, c.per_image_bytes)), 1, s.N);
    c.workspace_bytes = c.per_image_bytes * size(c.images_per_pass);
    return c;
}

std::size_t WeightGradientGemmConfig::partials_offset_floats(const ConvShapes& s) const {
    return size(images_per_pass * s.P() * s.Q() * s.C * s.R * s.S);
}

cl::NDRange WeightGradientGemmConfig::patches_global(const ConvShapes& s, std::int64_t images) const {
    return cl::NDRange(size(patch_length(s)), size(s.P() * s.Q()), size(images * s.groups));
}

cl::NDRange WeightGradientGemmConfig::gemm_global(const ConvShapes& s, std::int64_t images) const {
    return cl::NDRange(size(blocks(patch_length(s), tile.nr())), size(blocks(s.K / s.groups, tile.mr)),
                       size(images * s.groups));
}

std::vector<ProgramSpec> WeightGradientGemmConfig::programs() const {
    return {{"im2col", embedded_source("im2col"), "", {{"im2col_patches", {16, 4, 1}}}},
            gemm_program(tile, edge_m, edge_n, /*bias=*/false),
            {"gradient_sums", embedded_source("gradient_sums"), "",
             {internal::sum_partials_kernel(), internal::bias_gradient_kernel()}}};
}

std::string WeightGradientGemmConfig::str() const {
    return std::to_string(images_per_pass) + " image(s) per pass, workspace " + std::to_string(workspace_bytes) +
           " bytes, GEMM " + tile.str() + (edge_m ? ", rows clamped" : "") + (edge_n ? ", columns clamped" : "");
}

}  // namespace netcl
