#pragma once
// Internal: how wgrad-gemm computes one layer's weight gradient on netcl's
// GEMM engine -- the configuration both its strategy and its descriptor read.
//
// dW_g = sum over images n and pixel chunks of dY_{n,g}'s chunk columns
// (K/groups x pixels, NCHW as it lies) x the chunk's patches (pixels x
// C/groups·R·S, kernels_cl/im2col.cl's im2col_patches): a row-major GEMM per
// chunk (batched over groups) reducing over its pixels into a partial
// gradient of its own, and gradient_sums.cl's sum_partials adding a pass's
// partials into dW in chunk order. No atomics: the same dw bit for bit on
// every run. A chunk's patches are sized to stay in the caches between the
// copy that writes them and the GEMM that reads them (a whole image's were
// 115 MB on VGG's conv1.2 and ran at 11 GFLOPS, 2 MiB chunks at 21); one
// patch buffer serves every chunk in turn. Tried: the patches written in the
// GEMM's B panels (gemm.cl's B_PANEL, one GEMM a group), which streams B in
// order: VGG-16 at N = 1 ran at 0.31x oneDNN's backward weights against
// 0.41-0.46x row-major (Zen 3, depth-weighted, interleaved rounds; one run
// panelled, two row-major), every layer slower.
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
    bool edge_m = false;                // K/groups < MR
    bool edge_n = false;                // C/groups·R·S < NR
    std::int64_t chunk_pixels = 1;      // output pixels a chunk reduces over (the last of an image may be fewer)
    std::int64_t chunks_per_image = 1;
    std::int64_t chunks_per_pass = 1;   // partial gradients summed into dW at once
    std::size_t patches_bytes = 0;      // one chunk's patches (all groups)
    std::size_t workspace_bytes = 0;    // the patches, then chunks_per_pass partial gradients
    DataType dtype = DataType::FLOAT32;  // of x, dy, dw and db; the patches and partial sums are float32

    std::int64_t chunks(const ConvShapes& shapes) const { return shapes.N * chunks_per_image; }
    cl::NDRange patches_global(const ConvShapes& shapes, std::int64_t pixels) const;
    cl::NDRange patches_local() const { return cl::NDRange(4, 16, 1); }
    cl::NDRange gemm_global(const ConvShapes& shapes) const;  // batched over groups
    cl::NDRange gemm_local() const { return cl::NDRange(tile.work_group[0], tile.work_group[1], 1); }
    // The patch expansion, the GEMM, the sums (partials and bias gradient).
    std::vector<ProgramSpec> programs() const;
    std::string str() const;
};

// A chunk's patches where the profile sets no wgrad_gemm_chunk_bytes, and a
// pass's partial gradients where it sets no wgrad_gemm_pass_bytes.
inline constexpr std::size_t kWeightGradientChunkBytes = std::size_t{2} << 20;
inline constexpr std::size_t kWeightGradientPassBytes = std::size_t{32} << 20;
// Pixels a work-item of the patch copy takes in turn (kernels_cl/im2col.cl,
// im2col_patches), with work-groups of 4 patch columns x 16 runs: the
// weight gradient of a 1x1 layer (256 -> 64 channels at 56x56, N = 1) took
// 5.3-6.5 ms with a work-item an element (16 x 4 work-groups), 2.9 ms so;
// 16 x 4 work-groups of runs 6.3 ms (PoCL vectorises across dim 0: the
// lanes then read 16 channel planes apart), 1 x 64 3.0 ms. A 3x3 layer of
// 64 channels: 11.9 -> 6.3 ms (Zen 3, netcl-bench, median of 7). Tried and
// slower: 16 x 16 tiles transposed through local memory (reads along a row
// of x, writes along a patch row, a barrier between): 4.7 / 10.0 / 2.6 ms
// against these runs' 3.4 / 6.7 / 1.8 on that 1x1 layer, that 3x3 and
// res4.reduce (PoCL keeps every work-item's state across the barrier).
inline constexpr std::int64_t kWeightGradientPatchRun = 16;

WeightGradientGemmConfig weight_gradient_gemm_config(const ConvShapes& shapes, const DeviceProfile& profile);
// The workspace cap: profile value wgrad_gemm_workspace_limit_bytes, else a
// quarter of the device's largest allocation.
std::size_t weight_gradient_workspace_limit(const DeviceProfile& profile);

}  // namespace netcl
