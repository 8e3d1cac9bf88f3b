#pragma once
// Internal: how CONV2D_NAIVE runs one layer (kernels_cl/conv2d_naive.cl):
// the build options and the launch sizes both come from here.
#include <string>

#include "netcl/ConvShapes.hpp"
#include "netcl/OpenCL.hpp"
#include "ops/ProgramSpec.hpp"

namespace netcl {

struct NaiveConfig {
    // Output channels per work-item: 4, or 1 where a group has fewer than 4
    // (depthwise), which would otherwise compute idle lanes. Two builds in all.
    int channel_block = 4;
    // Neighbouring output columns per work-item (fixed in the kernel: QB).
    static constexpr int kColumnBlock = 4;

    std::string build_options() const { return "-DKB=" + std::to_string(channel_block); }
    cl::NDRange global(const ConvShapes& shapes) const;
    cl::NDRange local() const { return cl::NDRange(8, 4, 1); }
    std::string str() const;
    // kernels_cl/conv2d_naive.cl with these options.
    ProgramSpec program() const;
};

NaiveConfig naive_config(const ConvShapes& shapes);

}  // namespace netcl
