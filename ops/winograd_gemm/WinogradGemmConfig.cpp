#include "ops/winograd_gemm/WinogradGemmConfig.hpp"

#include <algorithm>
#include <cmath>

#include "netcl/Error.hpp"
#include "ops/winograd/WinogradMatrices.hpp"
#include "ops/winograd/WinogradSource.hpp"
#include "ops/internal/OutputStage.hpp"
#include "ops/internal/Storage.hpp"
#include "runtime/EmbeddedSources.hpp"

namespace netcl {

const std::vector<Variant>& winograd_gemm_variants() {
    static const std::vector<Variant> list = {Variant("wino-f2-gemm"), Variant("wino-f4-gemm"), Variant("wino-f6-gemm"),
                                              Variant("wino-f4r5-gemm"), Variant("wino-f5r5-gemm"), Variant("wino-f9r5-gemm"),
                                              Variant("wino3d-f2-gemm"), Variant("wino3d-f4-gemm")};
    return list;
}

std::optional<WinogradTile> winograd_gemm_tile(const Variant& variant) {
    if (variant.id == "wino-f2-gemm") return WinogradTile{2, 3};
    if (variant.id == "wino-f4-gemm") return WinogradTile{4, 3};
    if (variant.id == "wino-f6-gemm") return WinogradTile{6, 3};
    if (variant.id == "wino-f4r5-gemm") return WinogradTile{4, 5};
    if (variant.id == "wino-f5r5-gemm") return WinogradTile{5, 5};
    if (variant.id == "wino-f9r5-gemm") return WinogradTile{9, 5};
    if (variant.id == "wino3d-f2-gemm") return WinogradTile{2, 3, 3};
    if (variant.id == "wino3d-f4-gemm") return WinogradTile{4, 3, 3};
    return std::nullopt;
}

int WinogradTile::alpha() const { return winograd_matrices(m, r).alpha; }

std::size_t winograd_gemm_workspace_limit(const DeviceProfile& profile) {
    return static_cast<std::size_t>(profile.tuned_or("winograd_gemm_workspace_limit_bytes", 64.0 * (1 << 20)));
}

std::vector<std::string> winograd_gemm_profile_keys() {
    std::vector<std::string> keys = {"winograd_gemm_workspace_limit_bytes", "winograd_gemm_c_slice", "winograd_scaling",
                                     "winograd_transform_lanes", "winograd_gemm_transposed",
                                     "winograd_gemm_transposed_max_tiles", "winograd_gemm_transposed_min_channels",
                                     "winograd_gemm_prefetch_min_row_tiles", "winograd_gemm_prefetch_max_row_tiles",
                                     "winograd_gemm_half_u", "winograd_gemm_pass_target_bytes",
                                     "winograd_gemm_pass_max_u_ratio"};
    for (const char* prefix : {"winograd_gemm", "winograd_gemm_medium", "winograd_gemm_narrow", "winograd_gemm_transposed"}) {
        for (auto& key : gemm_tile_keys(prefix)) keys.push_back(key);
    }
    return keys;
}

namespace {

// The transposed multiply's tile for a pass of T tiles: the profile's, its
// rows cut to the MR in [mr / 2, mr] with the fewest padding rows (of equals,
// the smallest), and its work-group the row tiles of one K panel (at most
// the profile's wg1). Of equals the smallest: at T = 100 (F(6x6) at 56x56)
// rows of 4 ran the multiply in 4.17-4.46 ms against 4.33-4.57 for rows of
// 5 at C = 256, 2.36-2.43 against 2.59-2.62 at C = 128 (K = 256, U from
// memory, min of 15 in one process, interleaved, three runs); at T = 60
// rows of 3, 4, 5, 6 took 2.70, 2.76, 2.81, 2.84 ms; at T = 36, 6, 4 and 3
// were level.
GemmTile transposed_tile(const DeviceProfile& profile, std::int64_t T) {
    GemmTile tile = gemm_tile(profile, "winograd_gemm_transposed", GemmTile{6, 4, 16, {1, 16}});
    const auto padded = [T](int mr) { return (T + mr - 1) / mr * mr; };
    int best = tile.mr;
    for (int mr = tile.mr; mr >= (tile.mr + 1) / 2; --mr) {
        if (padded(mr) <= padded(best)) best = mr;
    }
    tile.mr = best;
    const std::int64_t row_tiles = (T + best - 1) / best;
    tile.work_group = {1, static_cast<std::size_t>(std::min<std::int64_t>(row_tiles, static_cast<std::int64_t>(tile.work_group[1])))};
    return tile;
}

}  // namespace

WinogradGemmConfig winograd_gemm_config(WinogradTile t, const ConvShapes& s, const DeviceProfile& profile) {
    WinogradGemmConfig c;
    const int m = t.m;
    c.m = m;
    c.r = t.r;
    c.alpha = t.alpha();
    c.rank = t.rank;
    c.post_ops = s.post_ops;
    c.dtype = s.dtype;
    c.filters_rotated = s.weights_transposed;
    // 0: the larger tiles unscaled (for netcl-bench --accuracy's comparison).
    c.scaled = profile.tuned_or("winograd_scaling", 1) != 0;
    const std::size_t limit = winograd_gemm_workspace_limit(profile);
    // The images, tiles and passes. A half input that the input transform
    // cannot read itself (the channel-lane transform can) is widened into a
    // float32 copy that shares the workspace, and the passes get what it
    // leaves: at most half of the limit, so the layer runs in chunks of
    // images (a divisor of N, each chunk its own copy and passes) where the
    // whole batch's copy would take more. VGG's conv1.2 at N = 8 (a 103 MB
    // copy over the 64 MB limit) had fallen to the implicit GEMM: 288 ms
    // against float32 Winograd's 141 on Zen 3.
    const auto lay_out = [&](bool widens_input) {
        c.widens_input = widens_input;
        c.images_per_chunk = s.N;
        if (widens_input) {
            const auto image_bytes = static_cast<std::size_t>(s.input_numel() / s.N) * sizeof(float);
            while (c.images_per_chunk > 1 && static_cast<std::size_t>(c.images_per_chunk) * image_bytes > limit / 2) {
                do --c.images_per_chunk;
                while (s.N % c.images_per_chunk != 0);
            }
        }
        c.chunks = s.N / c.images_per_chunk;
        c.tiles = c.images_per_chunk * ((s.O() + m - 1) / m) * ((s.P() + m - 1) / m) * ((s.Q() + m - 1) / m);
        const auto per_tile = static_cast<std::size_t>((s.C + s.K) * c.elements()) * sizeof(float);
        const std::size_t widened = c.widened_input_bytes(s);
        const std::size_t budget = limit > widened ? limit - widened : 0;
        std::int64_t most = std::clamp<std::int64_t>(static_cast<std::int64_t>(budget / per_tile), 1, c.tiles);
        // Passes sized to the cache (profile key "winograd_gemm_pass_target_bytes", default 0: as large as the
        // limit allows), so that V and M stay there between the three kernels, but never so small that the
        // multiply's stream of U, read once a pass, outweighs them: at least the tiles whose V and M are
        // 1 / "winograd_gemm_pass_max_u_ratio" (default 2) of U's bytes, C K / ((C + K) ratio). Measured on an
        // Intel Xeon with 4 MiB of L2 a core (pocl-cpu-avx512-intel.json has the figures): 8 MiB passes lifted
        // VGG's conv1.2 from 0.88-0.90x to 1.38-1.39x of oneDNN at N = 1, but cost 512-channel layers whose
        // passes then re-read a 38 MB U (res5.3x3 at N = 8 in 4 MiB passes: 1.53-1.66x -> 1.01-1.02x).
        const double target = profile.tuned_or("winograd_gemm_pass_target_bytes", 0);
        if (target > 0) {
            const double ratio = profile.tuned_or("winograd_gemm_pass_max_u_ratio", 2);
            const auto u_floor = static_cast<std::int64_t>(std::ceil(static_cast<double>(s.C * s.K) /
                                                                     (static_cast<double>(s.C + s.K) * ratio)));
            const auto cached = static_cast<std::int64_t>(target / static_cast<double>(per_tile));
            most = std::min(most, std::max<std::int64_t>({cached, u_floor, 1}));
        }
        // Passes of equal size (give or take one tile): no short last pass
        // narrower than the GEMM tile, which the kernel built for the others
        // would overrun (32 tiles at most 5 a pass: 5,5,5,5,4,4,4, not 5 x 6 + 2).
        c.passes = (c.tiles + most - 1) / most;
        c.tiles_per_pass = (c.tiles + c.passes - 1) / c.passes;
    };
    lay_out(false);
    const double forced = profile.tuned_or("winograd_gemm_transposed", -1);
    // 3-D: the DEPTH transforms (8 tiles a work-item) and the plain layouts
    // only (the channel and row-lane kernels are 2-D).
    c.transposed = c.rank == 3 ? false
                   : forced >= 0 ? forced != 0
                               : c.tiles_per_pass <= static_cast<std::int64_t>(profile.tuned_or("winograd_gemm_transposed_max_tiles", 0)) &&
                                     std::min(s.C, s.K) >= static_cast<std::int64_t>(profile.tuned_or("winograd_gemm_transposed_min_channels", 0));
    // float16 takes the same layouts; the output transforms store in the
    // layer's type. The other input transforms read a float32 copy of x: its
    // passes, never larger, keep the plain layouts (a profile's
    // transposed_max_tiles between the two pass sizes would otherwise take
    // the channel transform with a copy it does not read).
    if (s.dtype == DataType::FLOAT16 && !c.transposed) lay_out(true);
    const std::int64_t fewest = c.tiles / c.passes;
    // The widest tile that a pass's tiles fill: 6 x 16 in 2 x 8 work-groups
    // ran at 58-67 GFLOPS on the VGG Winograd GEMMs on PoCL (k-major A
    // 1.2-1.6x slower at T = 16); a tile wider than the pass mostly computes
    // padding (conv5's 14x14 with F(4x4), T = 16, under a 32-wide AVX-512
    // tile: 4.6-8.1 ms against 2.6 with a 16-wide one), so narrower tiles
    // take over down to res5's 7x7 (T = 4): 6 x 4 float4 in 1 x 16,
    // bandwidth-bound either way.
    const GemmTile wide = gemm_tile(profile, "winograd_gemm", GemmTile{6, 2, 8, {2, 8}});
    const GemmTile medium = gemm_tile(profile, "winograd_gemm_medium", GemmTile{6, 1, 8, {2, 8}});
    const GemmTile narrow = gemm_tile(profile, "winograd_gemm_narrow", GemmTile{6, 1, 4, {1, 16}});
    c.tile = c.tiles_per_pass >= wide.nr() ? wide : c.tiles_per_pass >= medium.nr() ? medium : narrow;
    // Transposed (M_e^T = V_e^T U_e^T): the pass's T tiles in rows of the
    // MR in [mr / 2, mr] that leaves the fewest padding rows (T = 25 -> 5,
    // 49 -> 5, 100 -> 4; transposed_tile), K along the vectors, with V laid
    // out [e][T][C] and M [T][K / vw][e][vw] (kernels_cl/gemm.cl C_GROUP) for
    // it and the transforms a channel a lane
    // (kernels_cl/winograd_gemm_channels.cl). The tiles-along-vectors tile
    // computes padding where a pass has few tiles (T = 25 under a 32-wide
    // tile) and its transforms leave lanes idle where a tile row is short of
    // them. Measured on VGG-16's layers at N = 1 (PoCL, AVX-512, 6 x 64
    // float16 tiles, the layer's median of 15 rounds in one interleaved run),
    // against the tile-row transforms with tiles along the vectors: F(4x4)
    // 12-37% faster on every layer (conv1.2 9.63 -> 6.03 ms, conv3.2 3.60 ->
    // 3.14, conv5 1.56 -> 1.37), F(6x6) 6-42% (conv1.2 8.10 -> 5.45, conv3.2
    // 4.09 -> 3.06); the 5x5 layers (C = 48) 20-44% at N = 1 and 32
    // (AlexNet's F(4x4,5x5) 0.277 -> 0.198 ms, 8.48 -> 6.80). Before V and M
    // were laid out for it, the multiply read V k-major and stored M a scalar
    // per lane, and lost on the 5x5 layers and at T >= 196. Profile keys
    // "winograd_gemm_transposed_max_tiles" (default 0: never) and
    // "winograd_gemm_transposed_min_channels" (C, K at least that: a channel
    // vector's worth).
    if (c.transposed) c.tile = transposed_tile(profile, c.tiles_per_pass);
    // U's next panel prefetched where 5-10 row tiles share a panel (kernels_cl/gemm.cl
    // PREFETCH_PANEL). Measured on the multiply alone at C = K = 512 (PoCL, Zen 4,
    // min of 15 interleaved, L3 flushed): 5 row tiles (F(6x6) at 28x28) 4.67-4.78 ->
    // 4.14 ms, 10 (F(4x4)) 5.12-5.14 -> 4.80; 4 (F(4x4) at 14x14) 2.12 -> 2.06-2.09
    // (within the noise: left out); 3 (F(6x6) at 14x14, where the stream alone is
    // near the memory's bandwidth) 2.99-3.06 -> 3.36-3.39; 20 (T = 100 in rows of 5,
    // C = 128, K = 256) 2.40 -> 2.47.
    const std::int64_t row_tiles = (c.tiles_per_pass + c.tile.mr - 1) / c.tile.mr;
    c.prefetch_panels = c.transposed &&
                        row_tiles >= static_cast<std::int64_t>(profile.tuned_or("winograd_gemm_prefetch_min_row_tiles", 0)) &&
                        row_tiles <= static_cast<std::int64_t>(profile.tuned_or("winograd_gemm_prefetch_max_row_tiles", 0));
    // Accuracy: the fp32 sum over C in slices of 128 channels (on VGG's
    // conv4.2, C = 512, F(4x4)'s max error 7.2e-4 against 1.75e-3 as one sum;
    // Lavin & Gray's Table 4 has 6.x e-4; kernels_cl/gemm.cl has the cost).
    const auto slice = static_cast<std::int64_t>(profile.tuned_or("winograd_gemm_c_slice", 128));
    c.c_slice = slice >= 1 && slice < s.C ? slice : 0;
    // Transforms with a tile row's tiles in a vector's lanes: where a row has
    // at least half a vector of tiles (lanes past the row are idle), and for
    // tiles up to alpha = 9: F(9x9,5x5)'s 13 x 13 (with real points) written
    // out took PoCL 34 s to compile against 12 s for the one-tile kernels (cold cache);
    // F(5x5,5x5)'s 9 x 9, the layer's plan with both programs, 10 s cold
    // against F(4x4,5x5)'s 7.6.
    const auto lanes = static_cast<int>(profile.tuned_or("winograd_transform_lanes", 0));
    if (lanes != 0 && lanes != 8 && lanes != 16) {
        throw Error("profile " + profile.tuned_source + ": winograd_transform_lanes " + std::to_string(lanes) +
                    " is not one the transforms build; expected 0 (a tile a work-item), 8 or 16");
    }
    const std::int64_t tiles_w = (s.Q() + m - 1) / m;
    c.row_lanes = c.rank == 2 && !c.transposed && lanes != 0 && c.alpha <= 9 && 2 * tiles_w >= lanes ? lanes : 0;
    // U in half for a half layer's F(2x2) (2-D, or F(2x2x2) in 3-D) where the profile asks (key
    // "winograd_gemm_half_u", default 0). U's own rounding passes through the output transform: on Lavin & Gray's
    // VGG layers (netcl-bench --accuracy --dtype float16, Xeon, PoCL) the max error against fp64 went from the half
    // output's floor (1.56e-2 / 3.12e-2) to 2.03e-2-5.30e-2 for F(2x2), 8.3e-2-0.22 for F(4x4), 0.36-0.98 for
    // F(6x6), and F(5x5,5x5)'s scaled U overflowed half (inf). Only F(2x2), whose G has no entry above 1, may take
    // it; no shipped profile does (slower on the CPUs: tools/netcl-bench/SPEED-FP16.md).
    c.half_u = s.dtype == DataType::FLOAT16 && m == 2 && c.r == 3 && profile.tuned_or("winograd_gemm_half_u", 0) != 0;
    c.edge_m = c.transposed ? fewest < c.tile.mr : s.K < c.tile.mr;
    c.edge_n = !c.transposed && fewest < c.tile.nr();  // transposed: U in whole panels (B_PANEL)
    return c;
}

std::size_t WinogradGemmConfig::workspace_bytes(const ConvShapes& s) const {
    return static_cast<std::size_t>(tiles_per_pass * (s.C + s.K) * elements()) * sizeof(float) + widened_input_bytes(s);
}

std::size_t WinogradGemmConfig::widened_input_bytes(const ConvShapes& s) const {
    return widens_input ? static_cast<std::size_t>(s.input_numel() / s.N * images_per_chunk) * sizeof(float) : 0;
}

std::int64_t WinogradGemmConfig::u_columns(const ConvShapes& s) const {
    return transposed ? (s.K + tile.nr() - 1) / tile.nr() * tile.nr() : s.K;
}

std::int64_t WinogradGemmConfig::u_plane(const ConvShapes& s) const { return u_columns(s) * s.C + u_plane_pad(); }

std::size_t WinogradGemmConfig::weight_bytes(const ConvShapes& s) const {
    return static_cast<std::size_t>(elements() * u_plane(s)) * (half_u ? 2 : sizeof(float));
}

std::array<std::size_t, 3> WinogradGemmConfig::weights_work_group() const {
    return {transposed ? static_cast<std::size_t>(tile.nr()) : 32u, 1, 1};
}

ProgramSpec WinogradGemmConfig::transforms_program() const {
    ProgramSpec spec{"winograd " + tile_name() + " transforms" + (scaled ? "" : " unscaled") +
                         (filters_rotated ? ", the filters rotated in place" : ""),
                     internal::post_ops_source() + winograd_cl_prelude(winograd_matrices(m, r, scaled)) +
                         embedded_source("winograd_gemm"),
                     (transposed ? "-DU_PANEL=" + std::to_string(tile.nr()) + " -DU_PLANE_PAD=" + std::to_string(u_plane_pad()) : "") + (rank == 3 ? " -DDEPTH" : "") +
                         internal::post_ops_options(post_ops) + internal::storage_options(dtype) +
                         (widens_input ? " -DX_TYPE=float" : "") + (half_u ? " -DU_TYPE=half" : "") +
                         (filters_rotated ? " -DFILTERS_ROTATED" : ""),
                     {{"winograd_gemm_input", {rank == 3 ? 1u : 16u, rank == 3 ? 1u : 4u, 1}},  // 3-D: 8 tiles a work-item
                      {"winograd_gemm_output", {rank == 3 ? 1u : 16u, rank == 3 ? 1u : 4u, 1}},
                      {"winograd_gemm_weights", weights_work_group()}}};
    if (transposed) {
        spec.label += ", " + std::to_string(tile.vw) + " channels a work-item";
        spec.source += embedded_source("vector_lane") + embedded_source("winograd_gemm_channels");
        spec.options += " -DCL=" + std::to_string(tile.vw);
        spec.kernels.push_back({"winograd_gemm_input_channels", {1, 1, 1}});
        spec.kernels.push_back({"winograd_gemm_output_channels", {1, 1, 1}});
    }
    if (row_lanes != 0) {
        spec.label += ", " + std::to_string(row_lanes) + " tiles a work-item";
        spec.source += winograd_row_lanes_prelude(m, alpha, row_lanes) + embedded_source("winograd_gemm_rows");
        spec.options += (spec.options.empty() ? "" : " ") + std::string("-DTL=") + std::to_string(row_lanes);
        spec.kernels.push_back({"winograd_gemm_input_rows", {1, 4, 1}});
        spec.kernels.push_back({"winograd_gemm_output_rows", {1, 4, 1}});
    }
    return spec;
}

ProgramSpec WinogradGemmConfig::gemm_program() const {
    // U is the multiply's B where it is transposed (M_e^T = V_e^T U_e^T), else its A.
    const DataType u_type = half_u ? DataType::FLOAT16 : DataType::FLOAT32;
    GemmOperandTypes types;
    (transposed ? types.b : types.a) = u_type;
    return netcl::gemm_program(tile, edge_m, edge_n, /*bias=*/false, c_slice, /*b_panels=*/transposed, prefetch_panels,
                               PostOps{}, types);
}

std::string WinogradGemmConfig::tile_name() const {
    const auto cube = [this](int v) {
        const std::string side = std::to_string(v);
        return rank == 3 ? side + "x" + side + "x" + side : side + "x" + side;
    };
    return "F(" + cube(m) + "," + cube(r) + ")";
}

std::string WinogradGemmConfig::str() const {
    return tile_name() +
           (scaled ? ", " : " unscaled, ") + std::to_string(tiles_per_pass) + " of " +
           std::to_string(tiles) + " tiles a pass" +
           (chunks > 1 ? " in each of " + std::to_string(chunks) + " chunks of " + std::to_string(images_per_chunk) +
                             " image(s), widened a chunk at a time"
                       : std::string()) +
           (dtype != DataType::FLOAT16 ? ""
            : widens_input           ? ", the half input widened to float32"
                                     : ", the half input read by the channel transform") +
           ", GEMM " + (transposed ? "transposed (tiles in rows, K along vectors) " : "") + tile.str() +
           (c_slice ? ", C summed in slices of " + std::to_string(c_slice) : std::string()) +
           (row_lanes ? ", transforms " + std::to_string(row_lanes) + " tiles a work-item" : std::string()) +
           (transposed ? ", transforms " + std::to_string(tile.vw) + " channels a work-item" : std::string()) +
           (prefetch_panels ? ", U's next panel prefetched" : std::string()) + (half_u ? ", U in half" : std::string());
}

}  // namespace netcl
