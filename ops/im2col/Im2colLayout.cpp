#include "ops/im2col/Im2colLayout.hpp"

#include "ops/im2col/ColumnExpansion.hpp"
#include "runtime/EmbeddedSources.hpp"


#include <algorithm>

namespace netcl {

Im2colLayout im2col_layout(const ConvShapes& s, std::size_t limit_bytes) {
    Im2colLayout layout;
    layout.direct = s.R == 1 && s.S == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_top == 0 && s.pad_left == 0 &&
                    s.pad_bottom == 0 && s.pad_right == 0;
    if (layout.direct) {
        layout.images_per_pass = s.N;
        return layout;
    }
    layout.columns_per_image_bytes =
        static_cast<std::size_t>(s.C) * s.R * s.S * static_cast<std::size_t>(s.P() * s.Q()) * sizeof(float);
    const std::size_t target = std::min(kIm2colPassBytes, limit_bytes);
    const auto fit = static_cast<std::int64_t>(target / std::max<std::size_t>(layout.columns_per_image_bytes, 1));
    layout.images_per_pass = std::clamp<std::int64_t>(fit, 1, s.N);
    layout.workspace_bytes = layout.columns_per_image_bytes * static_cast<std::size_t>(layout.images_per_pass);
    return layout;
}

Im2colLayout im2col_layout(const ConvShapes& shapes, const DeviceProfile& profile) {
    Im2colLayout layout = im2col_layout(shapes, im2col_workspace_limit(profile));
    layout.by_rows = !layout.direct && profile.tuned_or("im2col_rows", 0) != 0;
    return layout;
}

std::vector<ProgramSpec> im2col_programs(const Im2colLayout& layout, bool bias) {
    std::vector<ProgramSpec> programs;
    if (!layout.direct) {
        programs.push_back({"im2col", embedded_source("im2col"), "", {column_kernel(layout)}});
    }
    if (bias) programs.push_back({"bias_add", embedded_source("bias_add"), "", {{"bias_add", {64, 1, 1}}}});
    return programs;
}

std::size_t im2col_workspace_limit(const DeviceProfile& profile) {
    const double fallback =
        profile.max_alloc_bytes ? static_cast<double>(profile.max_alloc_bytes) / 4 : 256.0 * (1 << 20);
    return static_cast<std::size_t>(profile.tuned_or("im2col_workspace_limit_bytes", fallback));
}

}  // namespace netcl
