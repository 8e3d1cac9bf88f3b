#include "ops/implicit_gemm/ImplicitGemmConfig.hpp"

#include <algorithm>
#include <limits>

#include "netcl/Error.hpp"
#include "ops/internal/OutputStage.hpp"
#include "ops/internal/Storage.hpp"
#include "runtime/EmbeddedSources.hpp"

namespace netcl {

ImplicitGemmConfig implicit_gemm_config(const ConvShapes& s, const DeviceProfile& profile) {
    ImplicitGemmConfig c;
    // 4 x 16 in work-groups of 4 x 4: on ResNet-50's 3x3 stride-2 and strided
    // 1x1 layers on PoCL (Zen-1) it ran 1.4-2.1x faster than 6 x 16 in 2 x 8
    // (res4.3x3.stride2: 3.6 against 7.7 ms); the C = 3 stem likewise.
    const bool thin = s.C / s.groups < 8;
    if (thin) {
        c.tile = gemm_tile(profile, "implicit_gemm_thin", GemmTile{4, 2, 8, {4, 4}});
    } else {
        // Strided 1x1 layers (ResNet's projections) have a tile of their own,
        // the implicit_gemm one where a profile sets none: on 2 Zen 4 cores
        // ResNet-50's 3x3 stride-2 layers ran 13-26% faster on 4 x 64 than on
        // 8 x 48, its projections 5-13% faster at N = 1 but 13% slower at N = 8
        // (pocl-cpu-avx512.json has the figures).
        const GemmTile wide = gemm_tile(profile, "implicit_gemm", GemmTile{4, 2, 8, {4, 4}});
        const bool pointwise = s.T == 1 && s.R == 1 && s.S == 1;
        c.tile = pointwise ? gemm_tile(profile, "implicit_gemm_pointwise", wide) : wide;
    }
    c.R = static_cast<int>(s.R), c.S = static_cast<int>(s.S);
    c.stride_h = static_cast<int>(s.stride_h), c.stride_w = static_cast<int>(s.stride_w);
    c.pad_top = static_cast<int>(s.pad_top), c.pad_left = static_cast<int>(s.pad_left);
    c.bias = s.bias;
    c.depth = s.spatial_rank == 3;
    c.post_ops = s.post_ops;
    c.dtype = s.dtype;
    c.fixed_geometry = s.direct_flops() >= profile.tuned_or("implicit_gemm_fixed_min_flops", 5e7);
    // Few pixels and many weights (ResNet's 7x7 outputs at N = 1): all the
    // pixel tiles of one channel panel in one work-group keep the panel in
    // cache: 1 x 16 ran 1.4x faster than 4 x 4 on res5.3x3.stride2 (4.6
    // against 6.5 ms). The pixels are counted over the batch (the kernel folds
    // it in): at N = 8 the wide tile reads each panel for 49 tiles of 8 and
    // ran res5.3x3 at 6.3 against 9.9 ms, res5.expand 2.4 against 4.5 (AVX-512
    // profile, Zen 5); at N = 2 the two were within the noise.
    if (!thin && s.output_pixels() <= 64) {
        c.tile = gemm_tile(profile, "implicit_gemm_few_pixels", GemmTile{4, 2, 8, {1, 16}});
    }
    // A channel panel's weights past implicit_gemm_blocked_min_panel_bytes
    // leave the L2 serving a tile's 16 FMAs a 256-byte step; blocks of
    // channels that several tiles share from L1 instead (ResNet's
    // res5.3x3.stride2 at N = 8: 0.57 -> 0.68-0.73x of oneDNN on the Intel
    // profile, its item 16). Smaller panels stay a tile a work-item:
    // res3.3x3.stride2's 288 KiB ran 0.77-0.85x so and 0.65-0.67x blocked.
    // Only where a launch keeps implicit_gemm_blocked_min_items_per_unit
    // work-items a compute unit (a work-item holds KT tiles' work): measured
    // on 2 cores, where res5.3x3.stride2 at N = 1 has 16.
    const double panel_bytes = static_cast<double>(s.C / s.groups) * static_cast<double>(s.T * s.R * s.S) *
                               c.tile.nr() * static_cast<double>(sizeof(float));
    const double blocked_tiles = profile.tuned_or("implicit_gemm_blocked_tiles", 1);
    if (!thin && blocked_tiles > 1 &&
        panel_bytes >= profile.tuned_or("implicit_gemm_blocked_min_panel_bytes", 1 << 20)) {
        const double channels = profile.tuned_or("implicit_gemm_blocked_channels", 32);
        const double wg1 = profile.tuned_or("implicit_gemm_blocked_wg1", 1);
        if (blocked_tiles > 16 || blocked_tiles != static_cast<int>(blocked_tiles) || channels < 1 || wg1 < 1) {
            throw Error("profile " + profile.tuned_source + ": implicit_gemm_blocked_tiles " +
                        std::to_string(blocked_tiles) + ", _channels " + std::to_string(channels) + ", _wg1 " +
                        std::to_string(wg1) + " are not a blocked implicit GEMM; expected tiles 2..16, channels >= 1 "
                        "and a work-group >= 1 (tiles 1: off)");
        }
        const std::int64_t tiles = (s.output_pixels() + c.tile.mr - 1) / c.tile.mr;
        const std::int64_t items = (s.K / s.groups + c.tile.nr() - 1) / c.tile.nr() *
                                   ((tiles + static_cast<std::int64_t>(blocked_tiles) - 1) /
                                    static_cast<std::int64_t>(blocked_tiles));
        const double per_unit = profile.tuned_or("implicit_gemm_blocked_min_items_per_unit", 4);
        if (static_cast<double>(items) >= per_unit * std::max<std::uint32_t>(profile.compute_units, 1)) {
            c.tiles_per_item = static_cast<int>(blocked_tiles);
            c.channel_block = static_cast<int>(channels);
            c.tile.work_group[1] = static_cast<std::size_t>(wg1);
        }
    }
    return c;
}

std::size_t ImplicitGemmConfig::packed_floats_per_group(const ConvShapes& s) const {
    const std::int64_t kg = s.K / s.groups, panels = (kg + tile.nr() - 1) / tile.nr();
    return static_cast<std::size_t>(panels * tile.nr() * (s.C / s.groups) * s.T * s.R * s.S);
}

cl::NDRange ImplicitGemmConfig::global(const ConvShapes& s, std::int64_t images) const {
    const std::int64_t kg = s.K / s.groups, pixels = images * s.O() * s.P() * s.Q();
    return cl::NDRange(static_cast<std::size_t>((kg + tile.nr() - 1) / tile.nr()),
                       static_cast<std::size_t>(((pixels + tile.mr - 1) / tile.mr + tiles_per_item - 1) / tiles_per_item), 1);
}

std::int64_t ImplicitGemmConfig::images_per_launch(const ConvShapes& s) {
    // The kernel addresses an image's first float and a flat pixel index in
    // int (an int offset is what PoCL's vectoriser keeps cheap).
    const std::int64_t per_image = std::max(s.input_numel(), s.output_numel()) / s.N;
    return std::clamp<std::int64_t>(std::numeric_limits<int>::max() / std::max<std::int64_t>(per_image, 1), 1, s.N);
}

cl::NDRange ImplicitGemmConfig::local() const { return cl::NDRange(tile.work_group[0], tile.work_group[1], 1); }

ProgramSpec ImplicitGemmConfig::program() const {
    std::string options = tile.build_options() + " -DS=" + std::to_string(S);
    if (fixed_geometry) {
        options += " -DFIXED_GEOMETRY -DFR=" + std::to_string(R) + " -DFSH=" + std::to_string(stride_h) +
                   " -DFSW=" + std::to_string(stride_w) + " -DFPH=" + std::to_string(pad_top) +
                   " -DFPW=" + std::to_string(pad_left);
    }
    if (bias) options += " -DBIAS";
    if (tiles_per_item > 1) {
        options += " -DKT=" + std::to_string(tiles_per_item) + " -DKCB=" + std::to_string(channel_block);
    }
    if (depth) options += " -DDEPTH";
    options += " -DPACK_K=" + std::to_string(kPackFilters) + " -DPACK_RUN=" + std::to_string(kPackRun) +
               " -DPACK_RUNS=" + std::to_string(kPackRuns);
    options += internal::post_ops_options(post_ops) + internal::storage_options(dtype);
    // A float16 input is widened into the workspace first: each element feeds NR channels at every tap.
    if (dtype == DataType::FLOAT16) options += " -DX_TYPE=float";
    return {"conv_kvec", internal::post_ops_source() + embedded_source("vector_lane") + embedded_source("gemm_tile") + embedded_source("conv_kvec"), options,
            {{"conv_kvec", {tile.work_group[0], tile.work_group[1], 1}}, {"conv_kvec_pack", pack_work_group()}}};
}

std::string ImplicitGemmConfig::str() const {
    return tile.str() + ", weights packed in " + std::to_string(tile.nr()) + "-channel panels" +
           (tiles_per_item > 1 ? ", " + std::to_string(tiles_per_item) + " tiles a work-item over blocks of " +
                                     std::to_string(channel_block) + " channels"
                               : "") +
           (fixed_geometry ? ", geometry built in" : "");
}

}  // namespace netcl
