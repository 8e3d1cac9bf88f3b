#pragma once
// Internal: how Winograd's weight gradient (kernels_cl/winograd_wgrad.cl,
// Lavin & Gray section 4.2) runs one layer: the tile F(m x m, r x r) (m the
// filter's side, r the side of a dy tile), the GEMM's register tile, and how
// many tiles one pass transforms. The workspace holds M (K x C x alpha^2
// floats), which every pass adds to, one pass's V (C x alpha^2 a tile) and D
// (K x alpha^2 a tile), and a float16 x's float32 copy.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/OpenCL.hpp"
#include "netcl/Plan.hpp"
#include "ops/ProgramSpec.hpp"
#include "ops/gemm/GemmTile.hpp"

namespace netcl {

// The variants: "wino-wgrad-f2" (F(3x3,2x2), Lavin & Gray's eq. 14) and
// "wino-wgrad-f4" (F(3x3,4x4), alpha = 6), their multiply on netcl's GEMM
// engine; "-clblast" the same tiles with the multiply on CLBlast's
// strided-batched SGEMM (one call a pass over the alpha^2 elements), for
// devices whose profile turns the engine off (NVIDIA: VGG-16's weight
// gradients on wgrad-clblast took 30 ms at N = 8 on an H200 against cuDNN's
// 4.5, tools/gpu/README.md). The dy tile side each names, and whether it
// multiplies on CLBlast.
const std::vector<Variant>& winograd_wgrad_variants();
std::optional<int> winograd_wgrad_dy_tile(const Variant& variant);
bool winograd_wgrad_on_clblast(const Variant& variant);

struct WinogradWgradConfig {
    int m = 3, r = 2, alpha = 4;
    DataType dtype = DataType::FLOAT32;  // of x, dy, dw and db; V, D and M are float32
    bool scaled = true;                  // netcl's power-of-two scaling (profile "winograd_scaling")
    bool clblast = false;  // the multiply on CLBlast (its tile, edges and slices unused)
    GemmTile tile;
    bool edge_m = false, edge_n = false;  // K < MR, C < NR
    int channel_lanes = 8;                // x's transform: channels a work-item (the GEMM's vector width)
    // The multiply sums a pass's tiles in slices of this many, each slice's
    // sum added to a running total (kernels_cl/gemm.cl K_SLICE; 0: one sum).
    std::int64_t tile_slice = 0;
    std::int64_t tiles_w = 0, tiles_per_image = 0;  // dy's tiles: ceil(Q / r), ceil(P / r) x that
    std::int64_t tiles = 0;                          // N x tiles_per_image
    std::int64_t passes = 1;
    std::int64_t tiles_per_pass = 0;  // T of the largest pass; the first tiles % passes passes, the others one less

    int elements() const { return alpha * alpha; }
    std::size_t sums_bytes(const ConvShapes& shapes) const;       // M: K x C x alpha^2 floats
    std::size_t workspace_bytes(const ConvShapes& shapes) const;  // M, one pass's V and D
    ProgramSpec transforms_program() const;
    // The multiply; `accumulate`: adding into M (every pass after the first).
    ProgramSpec gemm_program(bool accumulate) const;
    std::string tile_name() const;  // "F(3x3,2x2)"
    std::string str() const;
};

// The workspace cap: profile key "winograd_wgrad_workspace_limit_bytes",
// else 64 MiB (as forward's separate transforms).
std::size_t winograd_wgrad_workspace_limit(const DeviceProfile& profile);
WinogradWgradConfig winograd_wgrad_config(int dy_tile, const ConvShapes& shapes, const DeviceProfile& profile);
WinogradWgradConfig winograd_wgrad_config(const Variant& variant, const ConvShapes& shapes, const DeviceProfile& profile);
std::vector<std::string> winograd_wgrad_profile_keys();

}  // namespace netcl
