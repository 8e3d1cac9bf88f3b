#pragma once
// Internal: how col2im-gemm computes one layer's input gradient on netcl's
// GEMM engine -- the configuration its strategy and its descriptor read.
//
// For each image n: cols_g = W_g^T (C/groups·R·S x K/groups: W read
// transposed in place, or in a float16 layer or in panels transposed once
// per set_weights by im2col_patches) x dy_{n,g} (K/groups x P·Q, NCHW
// as it lies), a row-major GEMM batched over groups, vectorised along dy's
// pixels; then kernels_cl/im2col.cl's col2im gathers each dx element's taps
// from cols. Backward data as forward (ops/as_forward/) runs the
// convolution of dy with the rotated filters instead, a stride phase at a
// time, each phase a forward layer of C output channels: where C is small
// (ResNet's stem: 3) every forward kernel vectorised along its output
// channels leaves most lanes empty, and this one is not (the selector's
// rule, selector/VariantChoice.cpp, has the measurements).
//
// Where W^T is not in panels and the layer is float32, the GEMM reads W
// itself transposed (weights_in_place, gemm.cl's A_TRANSPOSED): a training
// step's new weights cost no pass of their own. On 2 Xeon cores
// (pocl-cpu-avx512-intel, netcl-bench --direction train, N = 1, one
// interleaved run) res5's 3x3 (9.4 MB of filters, dy 7x7) took 3.09 ms as
// forward on im2col-gemm (a rotated copy), 2.16 here; its stride 2 6.49 /
// 4.22. A step reads K/groups floats a filter's length apart, so each image
// reads W again from memory: at N = 4 it lost (selector/VariantChoice.cpp).
//
// In panels where the profile's col2im_gemm_panels says (one group): W^T
// packed in panels of MR rows at set_weights, each image's dy packed into
// panels of NR columns before its GEMM (kernels_cl/panels.cl; gemm.cl's
// A_PANEL and B_PANEL), where read in place dy is K streams a plane apart.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/OpenCL.hpp"
#include "ops/ProgramSpec.hpp"
#include "ops/gemm/GemmTile.hpp"
#include "ops/internal/Panels.hpp"

namespace netcl {

struct Col2imGemmConfig {
    GemmTile tile;
    bool edge_m = false;                 // C/groups·R·S < MR
    bool edge_n = false;                 // P·Q < NR
    bool panels = false;
    // W read as it lies, K/groups x C/groups·R·S a group, as the GEMM's transposed A (gemm.cl's
    // A_TRANSPOSED): no copy at set_weights. Float32 rows only (a half A widened a lone element a step).
    bool weights_in_place = false;
    int prefetch_w_steps = 0;            // W in place: each GEMM step prefetches the tile's rows that many steps ahead
    int prefetch_dy_rows = 0;            // dy read in place: each GEMM step prefetches its columns that many channels ahead
    std::size_t columns_bytes = 0;       // one image's column matrix: the workspace
    std::size_t panel_bytes = 0;         // one image's dy in panels, after the columns (panels only)
    std::size_t weights_bytes = 0;       // W^T in float32 (or in panels), kept from set_weights; 0 in place
    DataType dtype = DataType::FLOAT32;  // of dy, w and dx; the columns and W^T are float32

    cl::NDRange transpose_global(const ConvShapes& shapes) const;
    cl::NDRange gemm_global(const ConvShapes& shapes) const;  // batched over groups
    cl::NDRange gemm_local() const { return cl::NDRange(tile.work_group[0], tile.work_group[1], 1); }
    cl::NDRange col2im_global(const ConvShapes& shapes) const;
    cl::NDRange col2im_local() const { return cl::NDRange(64, 1, 1); }
    std::size_t workspace_bytes() const { return columns_bytes + panel_bytes; }
    // The copies (W^T; col2im), the GEMM, and in panels the float32 packs (W^T's rows) and, in float16, the
    // layer type's (dy's columns).
    std::vector<ProgramSpec> programs() const;
    std::string str() const;
};

Col2imGemmConfig col2im_gemm_config(const ConvShapes& shapes, const DeviceProfile& profile);
// An image of dy as the GEMM's B in panels: a 1x1 layer's input of K planes of P x Q.
internal::ColumnSource col2im_dy_source(const ConvShapes& shapes);
// The workspace cap: profile value col2im_gemm_workspace_limit_bytes, else a
// quarter of the device's largest allocation.
std::size_t col2im_gemm_workspace_limit(const DeviceProfile& profile);

}  // namespace netcl
