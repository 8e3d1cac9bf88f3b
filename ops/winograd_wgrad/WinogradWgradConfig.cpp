#include "ops/winograd_wgrad/WinogradWgradConfig.hpp"

#include <algorithm>

#include "ops/internal/GradientSums.hpp"
#include "ops/internal/OutputStage.hpp"
#include "ops/internal/Storage.hpp"
#include "ops/winograd/WinogradMatrices.hpp"
#include "ops/winograd/WinogradSource.hpp"
#include "runtime/EmbeddedSources.hpp"

namespace netcl {

const std::vector<Variant>& winograd_wgrad_variants() {
    static const std::vector<Variant> list = {Variant("wino-wgrad-f2"), Variant("wino-wgrad-f4"),
                                              Variant("wino-wgrad-f2-clblast"), Variant("wino-wgrad-f4-clblast")};
    return list;
}

std::optional<int> winograd_wgrad_dy_tile(const Variant& variant) {
    if (variant.id == "wino-wgrad-f2" || variant.id == "wino-wgrad-f2-clblast") return 2;
    if (variant.id == "wino-wgrad-f4" || variant.id == "wino-wgrad-f4-clblast") return 4;
    return std::nullopt;
}

bool winograd_wgrad_on_clblast(const Variant& variant) {
    return winograd_wgrad_dy_tile(variant) && variant.id.ends_with("-clblast");
}

std::size_t winograd_wgrad_workspace_limit(const DeviceProfile& profile) {
    return static_cast<std::size_t>(profile.tuned_or("winograd_wgrad_workspace_limit_bytes", 64.0 * (1 << 20)));
}

std::vector<std::string> winograd_wgrad_profile_keys() {
    std::vector<std::string> keys = {"winograd_wgrad_workspace_limit_bytes", "winograd_wgrad_tile_slice"};
    for (auto& key : gemm_tile_keys("winograd_wgrad")) keys.push_back(key);
    return keys;
}

namespace {
std::size_t size(std::int64_t v) { return static_cast<std::size_t>(v); }
}  // namespace

WinogradWgradConfig winograd_wgrad_config(int dy_tile, const ConvShapes& s, const DeviceProfile& profile) {
    WinogradWgradConfig c;
    c.m = static_cast<int>(s.R);
    c.r = dy_tile;
    c.dtype = s.dtype;
    c.scaled = profile.tuned_or("winograd_scaling", 1) != 0;
    c.alpha = winograd_matrices(c.m, c.r, c.scaled).alpha;
    c.tiles_w = (s.Q() + c.r - 1) / c.r;
    c.tiles_per_image = c.tiles_w * ((s.P() + c.r - 1) / c.r);
    c.tiles = s.N * c.tiles_per_image;
    const std::size_t per_tile = size((s.C + s.K) * c.elements()) * sizeof(float);
    const std::size_t limit = winograd_wgrad_workspace_limit(profile);
    const std::size_t fixed = c.sums_bytes(s);
    const std::size_t budget = limit > fixed ? limit - fixed : 0;
    const std::int64_t most = std::clamp<std::int64_t>(static_cast<std::int64_t>(budget / per_tile), 1, c.tiles);
    c.passes = (c.tiles + most - 1) / most;
    c.tiles_per_pass = (c.tiles + c.passes - 1) / c.passes;
    // The multiply: K rows, C along the vectors, reducing over a pass's
    // tiles, on the GEMM engine's tile unless the profile sets its own. Not
    // wgrad-gemm's (wgrad_gemm): netcl-tune sets that one on wgrad-gemm's
    // layers alone, and this multiply (a batch over the alpha^2 elements)
    // was never timed with it.
    c.tile = gemm_tile(profile, "winograd_wgrad", gemm_tile(profile, "gemm", GemmTile{6, 2, 8, {8, 2}}));
    c.edge_m = s.K < c.tile.mr;
    c.edge_n = s.C < c.tile.nr();
    c.channel_lanes = c.tile.vw;
    // Accuracy: a pass sums up to thousands of tiles (3136 on VGG's conv1.2
    // at N = 1) into each of M's elements. In slices of 128, as forward's
    // multiply sums C, the max error over the direct dw's on Lavin & Gray's
    // layers (netcl-bench --accuracy, Zen 3) went from 0.43-0.86 to
    // 0.06-0.69 with F(3x3,2x2) and from 1.49-2.05 to 0.26-2.05 with
    // F(3x3,4x4) (conv1.2 3.89e-3 -> 6.61e-4; conv4.2 and conv5, 49 and 16
    // tiles, unchanged: their error is the transforms').
    const auto slice = static_cast<std::int64_t>(profile.tuned_or("winograd_wgrad_tile_slice", 128));
    c.tile_slice = slice >= 1 && slice < c.tiles_per_pass ? slice : 0;
    return c;
}

WinogradWgradConfig winograd_wgrad_config(const Variant& variant, const ConvShapes& shapes,
                                          const DeviceProfile& profile) {
    WinogradWgradConfig c = winograd_wgrad_config(*winograd_wgrad_dy_tile(variant), shapes, profile);
    c.clblast = winograd_wgrad_on_clblast(variant);
    return c;
}

std::size_t WinogradWgradConfig::sums_bytes(const ConvShapes& s) const {
    return size(s.C * s.K * elements()) * sizeof(float);
}

std::size_t WinogradWgradConfig::workspace_bytes(const ConvShapes& s) const {
    return sums_bytes(s) + size(tiles_per_pass * (s.C + s.K) * elements()) * sizeof(float);
}

ProgramSpec WinogradWgradConfig::transforms_program() const {
    // x's transform is forward's channel-lane one, its tiles a dy tile apart.
    return {"winograd weight gradient " + tile_name() + (scaled ? "" : " unscaled") + ", " +
                std::to_string(channel_lanes) + " channels a work-item",
            internal::post_ops_source() + winograd_cl_prelude(winograd_matrices(m, r, scaled)) +
                embedded_source("gradient_sums") + embedded_source("winograd_gemm") + embedded_source("vector_lane") +
                embedded_source("winograd_gemm_channels") + embedded_source("winograd_wgrad"),
            "-DTILE_STEP=" + std::to_string(r) + " -DCL=" + std::to_string(channel_lanes) +
                internal::storage_options(dtype),
            {{"winograd_gemm_input_channels", {1, 1, 1}},
             {"winograd_wgrad_dy", {1, 1, 1}},
             {"winograd_wgrad_output", {1, 1, 1}},
             internal::bias_gradient_kernel()}};
}

ProgramSpec WinogradWgradConfig::gemm_program(bool accumulate) const {
    return netcl::gemm_program(tile, edge_m, edge_n, /*bias=*/false, tile_slice, false, false,
                               accumulate ? PostOps{}.with_sum() : PostOps{});
}

std::string WinogradWgradConfig::tile_name() const {
    return "F(" + std::to_string(m) + "x" + std::to_string(m) + "," + std::to_string(r) + "x" + std::to_string(r) + ")";
}

std::string WinogradWgradConfig::str() const {
    return tile_name() + (scaled ? ", " : " unscaled, ") + std::to_string(tiles_per_pass) + " of " +
           std::to_string(tiles) + " dy tiles a pass (" + std::to_string(passes) + " pass" +
           (passes == 1 ? "" : "es") + "), " +
           (clblast ? std::string("the multiply one CLBlast strided-batched SGEMM a pass over the ") +
                          std::to_string(elements()) + " elements"
                    : "GEMM " + tile.str() +
                          (tile_slice ? ", tiles summed in slices of " + std::to_string(tile_slice) : std::string()) +
                          (edge_m ? ", rows clamped" : "") + (edge_n ? ", columns clamped" : ""));
}

}  // namespace netcl
