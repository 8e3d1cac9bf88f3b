#include "ops/gemm/PanelGemm.hpp"

#include <algorithm>

#include "netcl/Error.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "ops/internal/Panels.hpp"

namespace netcl::internal {

namespace {
ColumnSource pass_source(const ConvShapes& s, std::int64_t images) {
    ColumnSource source = column_source(s);
    source.images = images;
    return source;
}
}  // namespace

std::size_t panel_gemm_workspace_bytes(const ConvShapes& s, const GemmTile& tile, std::int64_t images_per_pass) {
    return column_panel_floats(pass_source(s, images_per_pass), tile.nr()) * sizeof(float);
}

std::int64_t panel_gemm_images_per_pass(const ConvShapes& s, const GemmTile& tile, std::size_t target_bytes) {
    const std::size_t image_bytes = panel_gemm_workspace_bytes(s, tile, 1);
    return std::clamp<std::int64_t>(static_cast<std::int64_t>(target_bytes / image_bytes), 1, s.N);
}

void enqueue_panel_gemm(const cl::CommandQueue& queue, cl::Kernel& pack, cl::Kernel& gemm, const GemmTile& tile,
                        const ConvShapes& s, std::int64_t images_per_pass, const Tensor& weights,
                        const Tensor* bias, const Tensor& x, const Tensor& y, const Workspace& workspace,
                        EventChain& chain, bool weights_transposed) {
    NETCL_REQUIRE(s.groups == 1, "the GEMM on packed panels takes one group; expected groups = 1");
    const std::size_t needed = panel_gemm_workspace_bytes(s, tile, images_per_pass);
    NETCL_REQUIRE(workspace.buffer() && workspace.bytes >= needed && workspace.offset_bytes % sizeof(float) == 0,
                  "the GEMM on packed panels: the workspace is missing or smaller than the " + std::to_string(needed) +
                      " bytes it declared");
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    auto u = [](std::int64_t v) { return static_cast<cl_ulong>(v); };
    const std::int64_t pq = s.P() * s.Q(), nr = tile.nr();
    const auto panels_at = static_cast<std::int64_t>(workspace.offset_bytes / sizeof(float));
    const Tensor& bias_or_any = bias ? *bias : weights;  // never read without BIAS
    for (std::int64_t n0 = 0; n0 < s.N; n0 += images_per_pass) {
        const ColumnSource pass = pass_source(s, std::min(images_per_pass, s.N - n0));
        enqueue_pack_columns(queue, pack, x, static_cast<std::size_t>(n0 * pass.image_stride), pass, i(nr),
                             workspace.buffer, static_cast<std::size_t>(panels_at), chain);
        // C's columns: every image's P*Q pixels in turn, the images K*P*Q apart (C_IMAGES).
        set_args(gemm, "gemm", weights.buffer(), offset_of(weights), 0, workspace.buffer, u(panels_at), 0, y.buffer(),
                 offset_of(y) + u(n0 * s.K * pq), i(s.K * pq), bias_or_any.buffer(), offset_of(bias_or_any), i(s.K),
                 i(pass.columns()), i(pass.rows()), i(weights_transposed ? s.K : pass.rows()), i(nr), i(pq));
        launch(queue, gemm, "gemm",
               cl::NDRange(static_cast<std::size_t>((pass.columns() + nr - 1) / nr),
                           static_cast<std::size_t>((s.K + tile.mr - 1) / tile.mr), 1),
               cl::NDRange(tile.work_group[0], tile.work_group[1], 1), chain);
    }
}

}  // namespace netcl::internal
