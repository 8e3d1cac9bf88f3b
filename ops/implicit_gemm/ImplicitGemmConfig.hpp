#pragma once
// Internal: how the implicit GEMM runs one layer (kernels_cl/conv_kvec.cl):
// its tile, the filter width as a build constant (its tap loop unrolls; the
// rest of the geometry is passed at launch), the packed-weight layout, and
// whether a work-item owns several pixel tiles over blocks of channels.
#include <array>
#include <cstdint>
#include <string>

#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/OpenCL.hpp"
#include "ops/ProgramSpec.hpp"
#include "ops/gemm/GemmTile.hpp"

namespace netcl {

struct ImplicitGemmConfig {
    GemmTile tile;
    int R = 1, S = 1, stride_h = 1, stride_w = 1, pad_top = 0, pad_left = 0;
    bool bias = false;
    bool depth = false;  // a 3-D layer: conv_kvec's DEPTH build (the plane loop)
    PostOps post_ops;  // forward's output stage (kernels_cl/post_ops.cl)
    DataType dtype = DataType::FLOAT32;  // of x, w, bias and y (kernels_cl/storage.cl); the panels are float32
    // The whole geometry as build constants: for layers of at least
    // implicit_gemm_fixed_min_flops (default 5e7), which pay for a build of
    // their own; smaller ones share one build per filter width.
    bool fixed_geometry = false;
    // Pixel tiles a work-item owns, taken in turn over blocks of
    // channel_block channels so they share each block's weights in L1 (1: one
    // tile, no blocks).
    int tiles_per_item = 1;
    int channel_block = 0;  // with tiles_per_item > 1

    // Packed weights of one group: ceil(Kg / NR) panels x Cg*T*R*S x NR floats.
    std::size_t packed_floats_per_group(const ConvShapes& shapes) const;
    // One launch covers `images` images (their pixels are one flat range):
    // dim0 the channel panels, dim1 the groups of tiles_per_item pixel tiles.
    cl::NDRange global(const ConvShapes& shapes, std::int64_t images) const;
    // The most images one launch can take (its offsets are int): the batch,
    // unless an image is large enough to overflow them.
    static std::int64_t images_per_launch(const ConvShapes& shapes);
    cl::NDRange local() const;
    ProgramSpec program() const;
    // The weight pack (kernels_cl/conv_kvec.cl, conv_kvec_pack): a work-item kPackRuns blocks of
    // kPackFilters filters x kPackRun weights in turn, a work-group a panel of NR filters. program() passes
    // them to the kernel as PACK_K, PACK_RUN and PACK_RUNS, so the kernel and the NDRange agree.
    static constexpr int kPackFilters = 4, kPackRun = 16, kPackRuns = 16, kPackWeights = kPackRun * kPackRuns;
    std::array<std::size_t, 3> pack_work_group() const {
        return {static_cast<std::size_t>(tile.nr() / kPackFilters), 1, 1};
    }
    std::string str() const;
};

ImplicitGemmConfig implicit_gemm_config(const ConvShapes& shapes, const DeviceProfile& profile);

}  // namespace netcl
