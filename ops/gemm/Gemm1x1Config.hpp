#pragma once
// Internal: how the 1x1 GEMM runs one layer (kernels_cl/gemm.cl): per image
// and group, Y[Kg x H*W] = W[Kg x Cg] * X[Cg x H*W] on NCHW as it lies.
#include <string>

#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/OpenCL.hpp"
#include "ops/ProgramSpec.hpp"
#include "ops/gemm/GemmTile.hpp"

namespace netcl {

struct Gemm1x1Config {
    GemmTile tile;
    bool edge_m = false;  // Kg < MR: the tile is taller than the matrix
    bool edge_n = false;  // H*W < NR: wider
    bool bias = false;
    PostOps post_ops;  // forward's output stage (kernels_cl/post_ops.cl)
    DataType dtype = DataType::FLOAT32;  // of weights, x, bias and y: the GEMM reads and writes them as they lie

    cl::NDRange global(const ConvShapes& shapes) const;
    cl::NDRange local() const;
    ProgramSpec program() const;
    std::string str() const;
};

Gemm1x1Config gemm1x1_config(const ConvShapes& shapes, const DeviceProfile& profile);

}  // namespace netcl
