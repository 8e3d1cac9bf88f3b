#pragma once
// Internal: a layer (one group) as netcl's GEMM on packed operands, a pass of
// images at a time: x's columns packed into panels across the pass's images
// (kernels_cl/panels.cl), then one GEMM over all their pixels, the weights
// already in panels of MR rows (gemm.cl's A_PANEL) or read row-major where
// they lie (a training forward's), B_PANEL and C_IMAGES.
// The 1x1 GEMM (x packed) and im2col-gemm (its columns in panels) share it.
#include <cstdint>

#include "netcl/ConvShapes.hpp"
#include "netcl/OpenCL.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ConvStrategy.hpp"
#include "ops/gemm/GemmTile.hpp"
#include "ops/internal/EventChain.hpp"

namespace netcl::internal {

// The workspace the panels of `images_per_pass` images take.
std::size_t panel_gemm_workspace_bytes(const ConvShapes& shapes, const GemmTile& tile, std::int64_t images_per_pass);
// As many images a pass as fit the target (at least one, at most N).
std::int64_t panel_gemm_images_per_pass(const ConvShapes& shapes, const GemmTile& tile, std::size_t target_bytes);

// `pack`: kernels_cl/panels.cl's pack_column_panels; `gemm`: the engine built with B_PANEL and C_IMAGES for
// `tile`, and A_PANEL where `weights` are packed in panels of tile.mr rows (else row-major, lda the
// reduction's length, or K where transposed); `bias`: nullptr without.
void enqueue_panel_gemm(const cl::CommandQueue& queue, cl::Kernel& pack, cl::Kernel& gemm, const GemmTile& tile,
                        const ConvShapes& shapes, std::int64_t images_per_pass, const Tensor& weights,
                        const Tensor* bias, const Tensor& x, const Tensor& y, const Workspace& workspace,
                        EventChain& chain, bool weights_transposed = false);

}  // namespace netcl::internal
