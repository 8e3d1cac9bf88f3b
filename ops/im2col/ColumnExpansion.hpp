#pragma once
// Internal: the column expansion both IM2COL variants run before their GEMM
// (kernels_cl/im2col.cl): which kernel the layout names, and one pass of it.
#include <cstdint>

#include "netcl/ConvShapes.hpp"
#include "netcl/OpenCL.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ProgramSpec.hpp"
#include "ops/im2col/Im2colLayout.hpp"
#include "ops/internal/EventChain.hpp"

namespace netcl {

// im2col_rows in work-groups of 4 rows where layout.by_rows, else im2col in
// work-groups of 64 columns.
KernelSpec column_kernel(const Im2colLayout& layout);

// Expands images n0 .. n0 + images - 1 of x into the column workspace at
// `origin` floats into `workspace` (a layout that is not direct).
void enqueue_columns(const cl::CommandQueue& queue, cl::Kernel& kernel, const Im2colLayout& layout,
                     const ConvShapes& shapes, const Tensor& x, const cl::Buffer& workspace, cl_ulong origin,
                     std::int64_t n0, std::int64_t images, internal::EventChain& chain);

}  // namespace netcl
