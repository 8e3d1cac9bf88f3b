#pragma once
#include <cstddef>
#include <cstdint>

#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"
#include "ops/ProgramSpec.hpp"
#include <vector>

namespace netcl {

// Internal: how IM2COL lays out one problem -- its configuration. The one
// formula both Im2colConv (what it uses) and its descriptor (the workspace it
// declares and caps) read.
struct Im2colLayout {
    // 1x1 filter, stride 1, no padding: the input already is the column matrix
    // (C x H·W per image), so no im2col pass and no workspace.
    bool direct = false;
    // (C·R·S) x (P·Q) floats for one image (0 when direct).
    std::size_t columns_per_image_bytes = 0;
    // Images expanded per pass: as many as fit min(the pass target, the
    // workspace limit), at least one, at most N. Each pass is one im2col launch and one batched GEMM over
    // images x groups, so small layers pay a launch per pass, not per image.
    std::int64_t images_per_pass = 1;
    // float16 on CLBlast's SGEMM (im2col_clblast_layout): a pass's GEMM output in float32, after the
    // columns, which kernels_cl/output_stage.cl stores into the half y; 0 otherwise.
    std::size_t float_output_bytes = 0;
    std::size_t workspace_bytes = 0;  // columns_per_image_bytes x images_per_pass + float_output_bytes
    // kernels_cl/im2col.cl's im2col_rows (a row of columns a work-item, for
    // CPUs: profile key im2col_rows) instead of one element a work-item.
    bool by_rows = false;
    DataType dtype = DataType::FLOAT32;  // of x (and y in the output stage); the columns are float32
};

// The batching target of one pass's column buffer where the profile sets no
// im2col_pass_bytes.
inline constexpr std::size_t kIm2colPassBytes = std::size_t{32} << 20;

// `limit_bytes`: the workspace cap in force (im2col_workspace_limit());
// `pass_bytes`: the pass's target (im2col_pass_bytes()). A limit or target
// below one image's columns still gives one image per pass; why_not()
// declines the limit's case.
Im2colLayout im2col_layout(const ConvShapes& shapes, std::size_t limit_bytes = kIm2colPassBytes,
                           std::size_t pass_bytes = kIm2colPassBytes);
// The layout on a device: its workspace limit, its pass target and its im2col kernel.
Im2colLayout im2col_layout(const ConvShapes& shapes, const DeviceProfile& profile);
// The same with the columns expanded where x is its own column matrix too: a
// float16 x that a float32 GEMM (CLBlast's) reads, widened by the expansion.
Im2colLayout im2col_layout_expanded(const ConvShapes& shapes, const DeviceProfile& profile);
// im2col-clblast's: im2col_layout in float32; in float16 the columns expanded
// (widened) and the GEMM's output staged in float32 (float_output_bytes).
Im2colLayout im2col_clblast_layout(const ConvShapes& shapes, const DeviceProfile& profile);

// Whether CLBlast's GEMM needs a pass after it (kernels_cl/output_stage.cl):
// for a bias or an activation; a residual sum is the GEMM's beta = 1. (A
// staged float32 output, float16, always takes one.)
bool needs_output_stage_pass(bool bias, const PostOps& post_ops);
// netcl's own programs for the layer: the column expansion (unless direct;
// work-groups of 64, or of 4 rows by_rows) and the output stage pass (where
// the GEMM that writes y is CLBlast's: `bias` and `post_ops` are that GEMM's).
std::vector<ProgramSpec> im2col_programs(const Im2colLayout& layout, bool bias, const PostOps& post_ops = {});

// The IM2COL workspace cap: profile value "im2col_workspace_limit_bytes", else
// a quarter of the device's largest allocation.
std::size_t im2col_workspace_limit(const DeviceProfile& profile);

// The columns one pass expands at most: profile value "im2col_pass_bytes",
// else kIm2colPassBytes. Throws netcl::Error for a value under 1.
std::size_t im2col_pass_bytes(const DeviceProfile& profile);

}  // namespace netcl
