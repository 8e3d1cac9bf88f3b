#pragma once
// Internal: how CONV2D_NAIVE runs one layer in one direction
// (kernels_cl/conv2d_naive.cl): the build options and the launch sizes both
// come from here.
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"
#include "netcl/OpenCL.hpp"
#include "ops/ProgramSpec.hpp"

namespace netcl {

struct NaiveConfig {
    ConvDirection direction = ConvDirection::FORWARD;
    // Channels per work-item: output channels forward, input channels
    // backward data (4, or 1 where a group has fewer than 4, e.g. depthwise,
    // which would otherwise compute idle lanes). Backward weights has one
    // element of dw a work-item and ignores it.
    int channel_block = 4;
    // Neighbouring columns per work-item (fixed in the kernel: QB).
    static constexpr int kColumnBlock = 4;
    PostOps post_ops;  // forward's output stage (kernels_cl/post_ops.cl)
    DataType dtype = DataType::FLOAT32;  // of the tensors (kernels_cl/storage.cl)

    std::string build_options() const;
    // The direction's kernel (forward, backward data, backward weights).
    const char* kernel_name() const;
    cl::NDRange global(const ConvShapes& shapes) const;
    cl::NDRange local() const;
    std::string str() const;
    // kernels_cl/conv2d_naive.cl with these options (backward weights: after
    // kernels_cl/gradient_sums.cl, whose bias_gradient it also runs).
    ProgramSpec program() const;
};

NaiveConfig naive_config(const ConvShapes& shapes);

}  // namespace netcl
