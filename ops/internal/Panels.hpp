#pragma once
// Internal: kernels_cl/panels.cl, a GEMM operand packed into the panels the
// engine's inner loop streams (gemm.cl's A_PANEL; B_PANEL with C_IMAGES),
// float32 whatever the tensor's storage.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "netcl/Context.hpp"
#include "netcl/ConvShapes.hpp"
#include "netcl/DataType.hpp"
#include "netcl/OpenCL.hpp"
#include "netcl/Tensor.hpp"
#include "ops/ProgramSpec.hpp"
#include "ops/internal/EventChain.hpp"

namespace netcl::internal {

// The packing kernels for tensors stored in `type`.
ProgramSpec panels_program(DataType type);
constexpr const char* kPackRowPanels = "pack_row_panels";
constexpr const char* kPackRowPanelsTransposed = "pack_row_panels_transposed";  // A from its transpose
constexpr const char* kPackColumnPanels = "pack_column_panels";

// Floats that `groups` blocks of rows x cols take in panels of mr rows.
std::size_t row_panel_floats(std::int64_t groups, std::int64_t rows, std::int64_t cols, int mr);
// `groups` row-major blocks of `from` (rows x cols each, one after the other) into `out` from float 0 on;
// `transposed`: blocks stored cols x rows, the kernel kPackRowPanelsTransposed.
void enqueue_pack_rows(const cl::CommandQueue& queue, cl::Kernel& kernel, const Tensor& from, std::int64_t groups,
                       std::int64_t rows, std::int64_t cols, int mr, const cl::Buffer& out, EventChain& chain,
                       bool transposed = false);

// The same into a fresh buffer of its own (a layer's weights at set_weights: a run still in flight keeps
// reading the old panels).
Tensor packed_row_panels(const std::shared_ptr<Context>& context, cl::Kernel& kernel, const Tensor& from,
                         std::int64_t groups, std::int64_t rows, std::int64_t cols, int mr, EventChain& chain,
                         bool transposed = false);

// Where B's columns come from: `images` NCHW images of `channels` planes H x W, output pixel (p, q) of
// P x Q, tap (r, s) of R x S read at (p * stride_h - pad_top + r * dil_h, q * stride_w - pad_left + s * dil_w).
struct ColumnSource {
    std::int64_t images = 1, channels = 1, H = 1, W = 1, P = 1, Q = 1, R = 1, S = 1;
    std::int64_t image_stride = 1;  // elements from an image to the next (all its channels)
    int stride_h = 1, stride_w = 1, pad_top = 0, pad_left = 0, dil_h = 1, dil_w = 1;

    std::int64_t columns() const { return images * P * Q; }
    std::int64_t rows() const { return channels * R * S; }
};
// A layer's input as the GEMM's B (its first `channels` channels: a group's, from the tensor's offset on).
ColumnSource column_source(const ConvShapes& shapes);
// Floats B takes in panels of nr columns (the last padded with zeros).
std::size_t column_panel_floats(const ColumnSource& source, int nr);
// B from `from`'s element `first` on (a pass's first image) into `out` from float out_offset_floats on.
void enqueue_pack_columns(const cl::CommandQueue& queue, cl::Kernel& kernel, const Tensor& from, std::size_t first,
                          const ColumnSource& source, int nr, const cl::Buffer& out, std::size_t out_offset_floats,
                          EventChain& chain);

}  // namespace netcl::internal
