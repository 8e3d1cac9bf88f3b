#include "ops/im2col/Im2colLayout.hpp"

#include "netcl/Error.hpp"
#include "ops/im2col/ColumnExpansion.hpp"
#include "ops/internal/WorkspaceLimit.hpp"
#include "ops/internal/OutputStage.hpp"
#include "ops/internal/Storage.hpp"
#include "runtime/EmbeddedSources.hpp"


#include <algorithm>

namespace netcl {

namespace {

Im2colLayout layout_of(const ConvShapes& s, std::size_t limit_bytes, std::size_t pass_bytes, bool may_be_direct) {
    Im2colLayout layout;
    layout.dtype = s.dtype;
    layout.direct = may_be_direct && s.R == 1 && s.S == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_top == 0 &&
                    s.pad_left == 0 && s.pad_bottom == 0 && s.pad_right == 0;
    if (layout.direct) {
        layout.images_per_pass = s.N;
        return layout;
    }
    layout.columns_per_image_bytes =
        static_cast<std::size_t>(s.C) * s.R * s.S * static_cast<std::size_t>(s.P() * s.Q()) * sizeof(float);
    const std::size_t target = std::min(pass_bytes, limit_bytes);
    const auto fit = static_cast<std::int64_t>(target / std::max<std::size_t>(layout.columns_per_image_bytes, 1));
    layout.images_per_pass = std::clamp<std::int64_t>(fit, 1, s.N);
    layout.workspace_bytes = layout.columns_per_image_bytes * static_cast<std::size_t>(layout.images_per_pass);
    return layout;
}

Im2colLayout layout_on(const ConvShapes& shapes, const DeviceProfile& profile, bool may_be_direct) {
    Im2colLayout layout = layout_of(shapes, im2col_workspace_limit(profile), im2col_pass_bytes(profile), may_be_direct);
    layout.by_rows = !layout.direct && profile.tuned_or("im2col_rows", 0) != 0;
    return layout;
}

}  // namespace

Im2colLayout im2col_layout(const ConvShapes& s, std::size_t limit_bytes, std::size_t pass_bytes) {
    return layout_of(s, limit_bytes, pass_bytes, /*may_be_direct=*/true);
}

Im2colLayout im2col_layout(const ConvShapes& shapes, const DeviceProfile& profile) {
    return layout_on(shapes, profile, /*may_be_direct=*/true);
}

Im2colLayout im2col_layout_expanded(const ConvShapes& shapes, const DeviceProfile& profile) {
    return layout_on(shapes, profile, /*may_be_direct=*/false);
}

Im2colLayout im2col_clblast_layout(const ConvShapes& s, const DeviceProfile& profile) {
    if (s.dtype != DataType::FLOAT16) return im2col_layout(s, profile);
    Im2colLayout layout = im2col_layout_expanded(s, profile);
    layout.float_output_bytes =
        static_cast<std::size_t>(layout.images_per_pass * s.K * s.P() * s.Q()) * sizeof(float);
    layout.workspace_bytes += layout.float_output_bytes;
    return layout;
}

bool needs_output_stage_pass(bool bias, const PostOps& post_ops) {
    return bias || post_ops.activation != Activation::NONE;
}


std::vector<ProgramSpec> im2col_programs(const Im2colLayout& layout, bool bias, const PostOps& post_ops) {
    std::vector<ProgramSpec> programs;
    if (!layout.direct) {
        programs.push_back({"im2col", internal::storage_source() + embedded_source("im2col"),
                            internal::storage_options(layout.dtype), {column_kernel(layout)}});
    }
    if (layout.float_output_bytes > 0) {
        // The residual read back from y as the staged output is stored.
        programs.push_back({"output_stage", internal::post_ops_source() + embedded_source("output_stage"),
                            internal::post_ops_options(post_ops) + internal::storage_options(layout.dtype),
                            {{"output_stage_from_float", {64, 1, 1}}}});
    } else if (needs_output_stage_pass(bias, post_ops)) {
        PostOps without_sum = post_ops;
        without_sum.sum = false;  // the GEMM's beta = 1 adds the residual
        programs.push_back({"output_stage", internal::post_ops_source() + embedded_source("output_stage"),
                            internal::post_ops_options(without_sum) + internal::storage_options(layout.dtype),
                            {{"output_stage", {64, 1, 1}}}});
    }
    return programs;
}

std::size_t im2col_workspace_limit(const DeviceProfile& profile) {
    return internal::workspace_limit(profile, "im2col_workspace_limit_bytes");
}

// A pass's columns are written by the copy and read back by the GEMM, so a
// pass that outgrows the caches goes to memory twice: on Zen 4 (2 cores, L3
// 32 MB shared with other tenants) VGG's conv1.1 at N = 8 (5.4 MB of
// columns an image) took 14.0 ms in passes of 6 images (the 32 MiB default)
// against 9.2 in passes of one (median of 4 alternating processes; N = 1 is
// one image either way). The AVX-512 PoCL profile sets 8 MiB.
std::size_t im2col_pass_bytes(const DeviceProfile& profile) {
    const double bytes = profile.tuned_or("im2col_pass_bytes", static_cast<double>(kIm2colPassBytes));
    if (!(bytes >= 1)) {
        throw Error("profile " + profile.tuned_source + ": im2col_pass_bytes " + std::to_string(bytes) +
                    " is not a size; expected the bytes of columns one pass may expand, at least 1");
    }
    // Past any buffer: every image in one pass (and no out-of-range cast).
    return bytes >= 0x1p62 ? std::size_t{1} << 62 : static_cast<std::size_t>(bytes);
}

}  // namespace netcl
