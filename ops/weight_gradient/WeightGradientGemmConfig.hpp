#pragma once
// Internal: how wgrad-gemm computes one layer's weight gradient on netcl's
// GEMM engine -- the configuration both its strategy and its descriptor read.
//
// Per image n and group g, dW_g += dY_{n,g} (K/groups x P·Q, NCHW as it lies)
// x patches_{n,g} (P·Q x C/groups·R·S, kernels_cl/im2col.cl's im2col_patches):
// a row-major GEMM whose reduction runs over the image's pixels. A pass
// expands a few images' patches, one batched GEMM writes each image's
// partial gradient, and gradient_sums.cl's sum_partials adds the pass's
// partials into dW in image order: no atomics, the same dw bit for bit on
// every run.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/OpenCL.hpp"
#include "ops/ProgramSpec.hpp"
#include "ops/gemm/GemmTile.hpp"

namespace netcl {

struct WeightGradientGemmConfig {
    GemmTile tile;
    bool edge_m = false;  // K/groups < MR
    bool edge_n = false;  // C/groups·R·S < NR
    std::size_t per_image_bytes = 0;  // one image's patches and partial gradient
    std::int64_t images_per_pass = 1;
    std::size_t workspace_bytes = 0;  // per_image_bytes x images_per_pass

    // Where a pass's partial gradients start in the workspace, in floats.
    std::size_t partials_offset_floats(const ConvShapes& shapes) const;
    cl::NDRange patches_global(const ConvShapes& shapes, std::int64_t images) const;
    cl::NDRange patches_local() const { return cl::NDRange(16, 4, 1); }
    cl::NDRange gemm_global(const ConvShapes& shapes, std::int64_t images) const;
    cl::NDRange gemm_local() const { return cl::NDRange(tile.work_group[0], tile.work_group[1], 1); }
    // The patch expansion, the GEMM, the sums (partials and bias gradient).
    std::vector<ProgramSpec> programs() const;
    std::string str() const;
};

// One pass's target where the profile sets no wgrad_gemm_pass_bytes: 32 MiB,
// IM2COL's; what a pass writes the GEMM reads back, so smaller stays in cache.
inline constexpr std::size_t kWeightGradientPassBytes = std::size_t{32} << 20;

WeightGradientGemmConfig weight_gradient_gemm_config(const ConvShapes& shapes, const DeviceProfile& profile);
// The workspace cap: profile value wgrad_gemm_workspace_limit_bytes, else a
// quarter of the device's largest allocation.
std::size_t weight_gradient_workspace_limit(const DeviceProfile& profile);

}  // namespace netcl
