#pragma once
// Internal: the register tile of netcl's GEMM engine (kernels_cl/gemm_tile.cl)
// as a configuration: MR rows x NV vectors of VW floats per work-item, and
// the work-group shape. Read from the profile under a prefix, so each user of
// the engine (1x1 GEMM, implicit GEMM, the Winograd multiply) has its own.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "netcl/DataType.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/PostOps.hpp"
#include "ops/ProgramSpec.hpp"

namespace netcl {

struct GemmTile {
    int mr = 6;  // rows per work-item
    int nv = 2;  // vectors per row
    int vw = 8;  // floats per vector (4, 8 or 16)
    std::array<std::size_t, 2> work_group{8, 2};
    std::string prefix{};  // the profile keys it was read from (gemm_tile()); netcl-tune --gemm-tiles searches them

    int nr() const { return nv * vw; }
    std::string build_options() const;
    std::string str() const;
};

// The tile under `prefix` ("gemm", "implicit_gemm"): keys <prefix>_mr, _nv,
// _vw, _wg0, _wg1, each falling back to `fallback`'s value.
GemmTile gemm_tile(const DeviceProfile& profile, const std::string& prefix, const GemmTile& fallback);
std::vector<std::string> gemm_tile_keys(const std::string& prefix);
// The engine's program (kernels_cl/vector_lane.cl + gemm_tile.cl + gemm.cl)
// for `tile`: EDGE_M / EDGE_N where the matrix is shorter / narrower than
// the tile, BIAS, K_SLICE (the reduction summed in slices of that many
// steps; 0: one sum), B_PANEL (B in panels of the tile's NR columns, the
// last padded; not with edge_n or bias) with C_GROUP (C in groups of the
// tile's vw columns, every batch entry's part of a row's group side by side;
// ldc = batch x N), PREFETCH_PANEL (with b_panels: the next panel
// prefetched while a panel's later row tiles compute; CPUs only), and the
// post-ops of a GEMM that writes a convolution's output (not with C_GROUP).
// `types`: what each operand is stored in (a float16 layer's tensors in
// half, netcl's workspaces in float32; bias as C).
struct GemmOperandTypes {
    DataType a = DataType::FLOAT32, b = DataType::FLOAT32, c = DataType::FLOAT32;
    static GemmOperandTypes all(DataType type) { return {type, type, type}; }
};
// Operands packed by kernels_cl/panels.cl: A in panels of MR rows (A_PANEL),
// B in panels of NR columns running across images, C stored back into them
// (B_PANEL with C_IMAGES; not with b_panels, edge_n or a batch); or B's
// columns across the images unpacked, each image read where it lies
// (B_IMAGES with C_IMAGES; not with the panels either); or A's images read
// where each lies, one GEMM's reduction running over them (A_IMAGES).
struct GemmPacking {
    bool a_panels = false;
    bool b_across_images = false;  // B packed in panels whose columns run across the images (B_PANEL, C_IMAGES)
    bool b_images_in_place = false;  // B's columns across the images, read where each image lies (B_IMAGES, C_IMAGES)
    int prefetch_b_rows = 0;  // > 0: row-major B in place, each step prefetching the tile's columns that many rows ahead
    // The reduction over several images of A read where each lies (A_IMAGES: kernel arguments a_images and
    // a_image_stride after ldc), B's rows running on across them; not with panels, k slices or B_IMAGES.
    bool a_images = false;
    // With a_images: A is x's column matrix read from its stride phases, an output row an "image" (A_PHASES:
    // kernel arguments taps_r, taps_s, stride_h, stride_w, dil_h, dil_w, phase_rows, phase_width after those).
    bool a_phases = false;
    // Not a packing but how C leaves: its whole vectors stored past the caches (STREAM_OUTPUT,
    // kernels_cl/storage.cl; not with C_GROUP, the Winograd multiply's M, which its output transform reads).
    bool stream_c = false;
    // A stored transposed, Kd x M (A_TRANSPOSED, lda its row stride): a 1x1 layer's filters read as the
    // weights of its backward data (ConvShapes::weights_transposed), a layer's filters as col2im-gemm's W^T;
    // not with panels, images or phases.
    bool a_transposed = false;
    int prefetch_a_rows = 0;  // > 0: with a_transposed, each step prefetches the tile's rows that many steps ahead
};
ProgramSpec gemm_program(const GemmTile& tile, bool edge_m, bool edge_n, bool bias, std::int64_t k_slice = 0,
                         bool b_panels = false, bool prefetch_panels = false, const PostOps& post_ops = {},
                         GemmOperandTypes types = {}, GemmPacking packing = {});
// Writes `tile` under `prefix` into profile.tuned (the inverse of gemm_tile()).
void set_gemm_tile(DeviceProfile& profile, const std::string& prefix, const GemmTile& tile);

}  // namespace netcl
