#pragma once
// Internal: IM2COL's im2col-gemm variant. The same column workspace as
// im2col-clblast (ops/im2col/Im2colLayout.hpp, kernels_cl/im2col.cl), then
// netcl's GEMM engine (kernels_cl/gemm.cl), batched over the pass's images,
// one launch per group, the bias added in the GEMM's store:
// Y[n, g] (K/g x P·Q) = W[g] (K/g x C/g·R·S) x col[n, g] (C/g·R·S x P·Q).
//
// With panels (few pixels an image): the columns written as the GEMM's B
// panels across the pass's images, the weights packed once at set_weights,
// one GEMM a pass (Im2colGemmConfig::panels).
//
// Why it exists beside the implicit GEMM: on layers with few input channels
// and a large image (VGG's conv1.1, C = 3, 224x224) the implicit GEMM's
// reduction is 27 steps per tile and its channel-vectorised stores are
// scalar and strided by P·Q; the column copy (5.4 MB) plus a GEMM
// vectorised along the pixels ran it several times faster (README).
#include <memory>
#include <string>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
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

class Im2colGemmConv final : public ConvStrategy {
public:
    Im2colGemmConv(std::shared_ptr<Context> context, const ConvShapes& shapes, const Im2colGemmConfig& config);

    void set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) override;
    void enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) override;

private:
    std::shared_ptr<Context> context_;
    ConvShapes shapes_;
    Im2colGemmConfig config_;
    cl::Kernel im2col_, gemm_;
    cl::Kernel widen_;                       // float16 layers only (not in panels)
    cl::Kernel pack_weights_, pack_columns_;  // config_.panels
    Tensor weights_;                         // float32: the caller's, their widened copy, or their panels
    Tensor bias_;
    bool has_weights_ = false;
};

}  // namespace netcl
