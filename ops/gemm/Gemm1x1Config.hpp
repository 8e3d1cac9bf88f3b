#pragma once
// Internal: how the 1x1 GEMM runs one layer (kernels_cl/gemm.cl): per image
// and group, Y[Kg x H*W] = W[Kg x Cg] * X[Cg x H*W] on NCHW as it lies; or,
// where x is packed (few pixels an image, or a stride), one GEMM over every
// image's pixels at once, Y[K x N*P*Q] = W * panels(X).
#include <cstddef>
#include <cstdint>
#include <string>

#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/OpenCL.hpp"
#include "ops/ProgramSpec.hpp"
#include "ops/gemm/GemmTile.hpp"
#include "ops/internal/Panels.hpp"

namespace netcl {

struct Gemm1x1Config {
    GemmTile tile;
    bool edge_m = false;  // Kg < MR: the tile is taller than the matrix
    bool edge_n = false;  // H*W < NR: wider
    bool bias = false;
    PostOps post_ops;  // forward's output stage (kernels_cl/post_ops.cl)
    DataType dtype = DataType::FLOAT32;  // of weights, x, bias and y: the GEMM reads and writes them as they lie
    bool pack_weights = false;  // the weights in panels of MR rows, packed at set_weights (float32)
    bool pack_x = false;        // x in panels of NR columns across the images, per run into the workspace (float32)
    std::int64_t images_per_pass = 1;  // pack_x: the images packed and multiplied at once (im2col's pass target)
    bool fold_images = false;  // x in place, the GEMM's columns across the images (one launch for the batch)
    int prefetch_x_rows = 0;   // x in place image by image: each step prefetches its columns that many channels ahead
    bool stream_output = false;  // y's whole vectors stored past the caches (a launch's y, stream_output_min_bytes)
    // The weights Cg x Kg a group (ConvShapes::weights_transposed): packed from there where pack_weights, else
    // read in place (A_TRANSPOSED).
    bool weights_transposed = false;
    bool reads_weights_transposed() const { return weights_transposed && !pack_weights; }
    int prefetch_weights_steps = 0;  // read transposed: each step prefetches the tile's weights that many steps ahead

    std::size_t weight_floats(const ConvShapes& shapes) const;     // netcl's copy of the weights (0: the caller's)
    std::size_t workspace_bytes(const ConvShapes& shapes) const;   // x's panels

    std::int64_t columns(const ConvShapes& shapes) const;  // the GEMM's N: an image's pixels, or the batch's folded
    cl::NDRange global(const ConvShapes& shapes) const;
    cl::NDRange local() const;
    ProgramSpec program() const;
    std::string str() const;
};

Gemm1x1Config gemm1x1_config(const ConvShapes& shapes, const DeviceProfile& profile);
// The most columns (N x P x Q) over which the 1x1 GEMM reads a layer's filters transposed in place
// (gemm1x1_transposed_filters_max_columns, 98 unless the profile says: Gemm1x1Implementation.cpp).
double transposed_filters_max_columns(const DeviceProfile& profile);

}  // namespace netcl
