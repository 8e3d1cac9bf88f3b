#pragma once
// Internal: how separate-transform Winograd (kernels_cl/winograd_gemm.cl +
// the GEMM engine) runs one layer: the tile F(m x m, r x r), the GEMM's
// register tile, and how many tiles one pass transforms (the workspace holds
// V and M of one pass: (C + K) x alpha^2 floats per tile; alpha^3 in 3-D,
// F(m x m x m, r x r x r), Lan et al.).
#include <array>
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

// The variants ("wino-f2-gemm", "wino-f4-gemm", "wino-f6-gemm" for 3x3
// filters, "wino-f4r5-gemm", "wino-f5r5-gemm", "wino-f9r5-gemm" for 5x5;
// "wino3d-f2-gemm", "wino3d-f4-gemm" for 3x3x3) and the tile each names.
struct WinogradTile {
    int m = 4, r = 3;  // F(m x m, r x r)
    int rank = 2;      // 3: F(m x m x m, r x r x r), the 1-D matrices along each axis
    // The transformed tile's side: m + r - 1, or more where the tile has
    // quadratic factors (F(9x9,5x5): 16; WinogradMatrices.hpp).
    int alpha() const;
};
const std::vector<Variant>& winograd_gemm_variants();
std::optional<WinogradTile> winograd_gemm_tile(const Variant& variant);

struct WinogradGemmConfig {
    int m = 4, r = 3, alpha = 6;
    DataType dtype = DataType::FLOAT32;  // of x, w, bias and y; V and M are float32, U too unless half_u
    // A float16 layer's F(2x2) U kept in half (profile key "winograd_gemm_half_u"): the multiply streams U
    // once a pass, so half halves its bytes, and widens each vector of it as it goes.
    bool half_u = false;
    // Backward data's forward problem given the layer's own filters (ConvShapes::weights_transposed): the
    // weights transform reads filter (k, c) as the layer's (c, k), its taps reversed (FILTERS_ROTATED), where
    // a rotated copy cost a pass over the filters every training step.
    bool filters_rotated = false;
    int rank = 2;  // 3: the DEPTH build of kernels_cl/winograd_gemm.cl (8 tiles a work-item in float8 lanes, plain layouts)
    // Transform elements, the GEMMs of the batch: alpha^2, or alpha^3 in 3-D.
    int elements() const { return rank == 3 ? alpha * alpha * alpha : alpha * alpha; }
    bool scaled = true;               // all but F(2,3): netcl's power-of-two scaling (profile "winograd_scaling"; separate transforms only)
    GemmTile tile;
    std::int64_t c_slice = 0;         // the multiply sums C in slices of this many channels (0: one sum)
    // A float16 x copied to float32 before the input transform (kernels_cl/widen.cl):
    // the one-tile and row-lane transforms, which would convert it a lane at a time.
    // The channel-lane transform (transposed) reads the half x itself.
    bool widens_input = false;
    // The images run together: N, or for a widened input whose float32 copy
    // would take more than half the workspace limit a divisor of N (the
    // layer then runs N / images_per_chunk times, each chunk widened alone).
    std::int64_t images_per_chunk = 1;
    std::int64_t chunks = 1;  // N / images_per_chunk
    std::int64_t tiles = 0;           // of one chunk: images_per_chunk x ceil(P/m) x ceil(Q/m) (x ceil(O/m) in 3-D)
    std::int64_t passes = 1;
    std::int64_t tiles_per_pass = 0;  // T of the largest pass; the first tiles % passes passes, the others one less
    // The multiply as M_e^T = V_e^T U_e^T: K along the GEMM's vectors and
    // the pass's tiles in its rows, with V laid out [e][T][C] and M in
    // groups of tile.vw channels, [T][K / vw][e][vw] (kernels_cl/gemm.cl
    // C_GROUP), U in panels of K (u_columns), and the transforms a channel
    // a lane (kernels_cl/winograd_gemm_channels.cl, tile.vw channels a
    // work-item).
    // Profile keys: "winograd_gemm_transposed_max_tiles" (the passes of at
    // most that many tiles; default 0) with
    // "winograd_gemm_transposed_min_channels" (C and K at least that), and
    // "winograd_gemm_transposed" (0 never, 1 always: tests and tuning).
    bool transposed = false;
    // Transposed only: the GEMM prefetches U's next panel (kernels_cl/gemm.cl
    // PREFETCH_PANEL) where the row tiles sharing a panel number between the
    // profile keys "winograd_gemm_prefetch_min_row_tiles" and "..._max_row_tiles"
    // (default 0: never; it needs __builtin_prefetch, so CPU profiles set them).
    bool prefetch_panels = false;
    bool edge_m = false, edge_n = false;
    // Tiles of one tile row per work-item in the transforms (8 or 16: the
    // row kernels of kernels_cl/winograd_gemm_rows.cl), 0: one tile each;
    // 0 where the multiply is transposed.
    int row_lanes = 0;
    PostOps post_ops;  // the output transforms' output stage (kernels_cl/post_ops.cl)

    // The widened input's chunk, after V and M (kernels_cl/widen.cl); 0 where none is widened.
    std::size_t widened_input_bytes(const ConvShapes& shapes) const;
    std::size_t workspace_bytes(const ConvShapes& shapes) const;  // V and M of one pass
    std::size_t weight_bytes(const ConvShapes& shapes) const;     // U: elements() x u_plane floats (halves)
    // K, or transposed K padded to whole panels of the GEMM's NR columns (U
    // [e][K / NR][C][NR], streamed a panel at a time).
    std::int64_t u_columns(const ConvShapes& shapes) const;
    // U_e's elements, e to e + 1: u_columns x C, transposed one cache line (64 bytes) more. The
    // filter transform writes every e of a filter at once; planes a multiple of 4 KiB apart (C = 512:
    // 1 MiB) put its alpha^2 stores in one cache set (F(4x4) on 512 x 512, 2 Xeon cores: 19 -> 8 ms).
    std::int64_t u_plane(const ConvShapes& shapes) const;
    std::int64_t u_plane_pad() const { return transposed ? (half_u ? 32 : 16) : 0; }
    // The filter transform's work-group: a panel of columns (transposed) or 32 channels along U's
    // contiguous axis. Eight filters a work-group had made 32,768 work-groups of a 512 x 512 layer,
    // whose scheduling on PoCL outweighed the transform (set_weights, every training step).
    std::array<std::size_t, 3> weights_work_group() const;
    ProgramSpec transforms_program() const;
    ProgramSpec gemm_program() const;
    std::string tile_name() const;  // "F(4x4,3x3)", "F(2x2x2,3x3x3)"
    std::string str() const;
};

// The workspace cap: profile key "winograd_gemm_workspace_limit_bytes",
// else 64 MiB (VGG-16's largest layer, conv1.2, in one pass at N = 1).
std::size_t winograd_gemm_workspace_limit(const DeviceProfile& profile);
WinogradGemmConfig winograd_gemm_config(WinogradTile tile, const ConvShapes& shapes, const DeviceProfile& profile);
std::vector<std::string> winograd_gemm_profile_keys();

}  // namespace netcl
