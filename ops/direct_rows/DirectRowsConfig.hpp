#pragma once
// Internal: how the row-vectorised direct convolution runs one layer
// (kernels_cl/conv_rows.cl): its register tile (MR output channels x NV
// vectors of VW outputs along a row), the padded, column-phase-split copy of
// the input it reads (the workspace), and how many images one pass copies.
#include <cstddef>
#include <cstdint>
#include <string>

#include "netcl/ConvShapes.hpp"
#include "netcl/DataType.hpp"
#include "netcl/DeviceProfile.hpp"
#include "ops/ProgramSpec.hpp"
#include "ops/gemm/GemmTile.hpp"

namespace netcl {

struct DirectRowsConfig {
    GemmTile tile;            // mr = output channels, nv x vw = outputs along a row
    // Build constants: the filter width (its taps unroll) and the column
    // stride (the number of column phases); the rest is passed at launch.
    int S = 1, stride_w = 1;
    bool bias = false;
    bool stream_output = false;  // y's whole vectors stored past the caches (STREAM_OUTPUT)
    PostOps post_ops;  // forward's output stage (kernels_cl/post_ops.cl)
    DataType dtype = DataType::FLOAT32;  // of x, w, bias and y; the split planes and panels are float32
    std::int64_t plane_h = 0, plane_w = 0;  // one phase plane of one channel: padded rows x columns
    std::int64_t images_per_pass = 1;
    std::size_t split_bytes_per_image = 0;

    std::size_t workspace_bytes() const { return split_bytes_per_image * static_cast<std::size_t>(images_per_pass); }
    std::size_t packed_floats(const ConvShapes& shapes) const;  // weights in MR-channel panels
    ProgramSpec program() const;
    std::string str() const;
};

// Profile keys direct_rows_{mr,nv,vw,wg0,wg1} (the tile; a layer of column
// stride 1 direct_rows_unstrided_*, falling back to those), and
// direct_rows_workspace_limit_bytes (the split copy of one pass), and
// stream_output_min_bytes against the output of one pass.
DirectRowsConfig direct_rows_config(const ConvShapes& shapes, const DeviceProfile& profile);
std::size_t direct_rows_workspace_limit(const DeviceProfile& profile);

}  // namespace netcl
