#pragma once
// Internal: how im2col-gemm runs one layer on netcl's GEMM engine -- the
// configuration its strategy, its descriptor and the selector's few-pixel
// rule read (ops/im2col/Im2colGemmConv.hpp says what the variant is).
#include <cstddef>
#include <cstdint>
#include <string>

#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"
#include "ops/ProgramSpec.hpp"
#include "ops/gemm/GemmTile.hpp"
#include "ops/im2col/Im2colLayout.hpp"

namespace netcl {

struct Im2colGemmConfig {
    Im2colLayout layout;
    GemmTile tile;
    bool edge_m = false;  // K/groups < MR
    bool edge_n = false;  // P·Q < NR
    bool bias = false;
    PostOps post_ops;  // forward's output stage (kernels_cl/post_ops.cl)
    // The columns in panels across a pass's images and the weights in panels
    // of MR rows (kernels_cl/panels.cl; gemm.cl's A_PANEL, B_PANEL and
    // C_IMAGES): one GEMM a pass over every image's pixels, where an image has
    // at most im2col_gemm_panels_max_pixels output pixels, or the layer at
    // most im2col_gemm_panels_max_channels input channels over a reduction
    // longer than im2col_gemm_max_reduction (one group).
    bool panels = false;
    // With panels, where the weights are new every run (a training forward): the weights read where they lie,
    // row-major, not packed into panels every step (im2col_gemm_training_weights_in_place; Im2colGemmConfig.cpp
    // has the measurement).
    bool weights_in_place = false;
    // The weights packed into panels of MR rows at set_weights (gemm.cl's A_PANEL).
    bool packs_weights() const { return panels && !weights_in_place; }
    std::int64_t images_per_pass = 1;  // the layout's, or the panels' (the same pass target)
    bool stream_output = false;  // y's whole vectors stored past the caches (a launch's y, stream_output_min_bytes)

    std::size_t workspace_bytes(const ConvShapes& shapes) const;
    std::size_t weight_floats(const ConvShapes& shapes) const;  // netcl's copy of the weights (0: the caller's)
    ProgramSpec gemm_program() const;
    std::string str() const;
};

// Profile keys im2col_gemm_{mr,nv,vw,wg0,wg1}: the GEMM engine's tile, by
// default the 1x1 GEMM's.
Im2colGemmConfig im2col_gemm_config(const ConvShapes& shapes, const DeviceProfile& profile);

}  // namespace netcl
