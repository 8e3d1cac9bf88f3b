#include "ops/weight_gradient/WeightGradientGemmConfig.hpp"

#include <algorithm>

#include "ops/internal/WorkspaceLimit.hpp"
#include "ops/internal/GradientSums.hpp"
#include "ops/internal/Storage.hpp"
#include "ops/internal/Widen.hpp"
#include "runtime/EmbeddedSources.hpp"

namespace netcl {

namespace {
std::size_t size(std::int64_t v) { return static_cast<std::size_t>(v); }
std::int64_t blocks(std::int64_t n, std::int64_t block) { return (n + block - 1) / block; }
std::int64_t patch_length(const ConvShapes& s) { return s.C / s.groups * s.R * s.S; }
}  // namespace

std::size_t weight_gradient_workspace_limit(const DeviceProfile& profile) {
    return internal::workspace_limit(profile, "wgrad_gemm_workspace_limit_bytes");
}

namespace {

bool columns_in_place(const ConvShapes& s) {
    return s.R == 1 && s.S == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_top == 0 && s.pad_bottom == 0 &&
           s.pad_left == 0 && s.pad_right == 0;
}

// x's columns and dy transposed where dy's rows are at most
// wgrad_gemm_dy_copy_max_ratio (default 1) times as long as the patches'
// (K/groups against C/groups·R·S): then the copy of dy is no larger than
// the patches, whose copy writes across where the columns' runs along. On
// 2 Zen 3 cores (netcl-bench, patches / columns, ms; min of 5, two
// alternating runs each):
//  - x read in place (1x1, stride 1), ResNet-50 at N = 8: 256 -> 64 at
//    56x56 19.8, 23.5 / 11.1, 11.5; 512 -> 128 at 28x28 16.4, 16.7 / 9.9,
//    10.2; 1024 -> 256 at 14x14 18.4, 14.5 / 8.6, 9.0; K = C (64 at 56x56)
//    level within the noise; 64 -> 256 (K = 4C) 15.2 / 23.8 (medians);
//    2048 -> 512 at 7x7 (with the blend in 8 x 8 blocks; min of 7) 12.6,
//    12.3 / 7.0, 9.7, and at N = 1 2.38, 2.26 / 1.95, 2.20.
//  - columns copied, N = 1: ResNet's stem (147 taps, K = 64) 8.4, 8.2 /
//    4.5, 5.1; 3x3 stride 2, 128 at 56x56 4.2, 3.7 / 2.8, 3.2, 256 at 28x28
//    level; 1x1 stride 2, 512 -> 256 at 56x56 4.0, 3.6 / 3.1, 3.5; and
//    against the rule: VGG's conv1.1 (27 taps, K = 64) 4.9, 4.2 / 8.5, 9.8,
//    1x1 stride 2 1024 -> 2048 at 14x14 3.6, 4.5 / 11.7, 11.0.
// Copied columns also need output rows of at least wgrad_gemm_columns_min_width
// (default 16) pixels: the copy's advantage is its runs along them, and on
// res5's 7x7 outputs at N = 1 (3x3 stride 2, 512 channels) the columns ran
// at 0.39x oneDNN against the patches' 0.49x (ResNet-50 training runs, the
// blend then still a work-item an element). On an Intel Xeon rows of 14
// (res4's 3x3 stride 2) ran faster copied: pocl-cpu-avx512-intel.json's 14.
// Whatever the ratio, patches shorter than the tile's NR while K/groups fills
// it take the columns too: the patches' GEMM would run on its edge path (each
// of B's elements loaded a lane at a time) over a tile mostly past the
// patch. VGG's conv1.1 (27 taps, K = 64) on 2 cores of an Intel Xeon
// (AVX-512, netcl-bench --direction bwd_weights, ms, patches / columns):
// 6 x 64 tiles 13.5 / 4.1 at N = 1 and 154 / 46 at N = 8; 8 x 48 tiles 10.3 /
// 6.6 and 79 / 57. With AVX2's 16-wide tiles the 27 taps fill them, and the
// measurement above (Zen 3) stands.
// And, where x lies in place (a 1x1 stride-1 layer) and the profile sets
// wgrad_gemm_dy_copy_min_saving (0: off), only where copying dy rather than
// x saves at least that many times dW's size in floats, N·P·Q·(C - K) >=
// saving x K·C/groups: the columns' sum is dW transposed, which the blend
// reads and writes again, where the patches' GEMM writes dw itself from one
// launch. Few-pixel layers copy little either way: pocl-cpu-avx512-intel.json
// (item 17) has the measurement.
bool takes_columns(const ConvShapes& s, const DeviceProfile& profile, const GemmTile& tile) {
    const bool short_patches = patch_length(s) < tile.nr() && s.K / s.groups >= tile.nr();
    const double ratio = profile.tuned_or("wgrad_gemm_dy_copy_max_ratio", 1.0);
    if (!short_patches && static_cast<double>(s.K / s.groups) > ratio * static_cast<double>(patch_length(s))) {
        return false;
    }
    const double min_saving = profile.tuned_or("wgrad_gemm_dy_copy_min_saving", 0.0);
    if (!short_patches && columns_in_place(s) && min_saving > 0.0 &&
        static_cast<double>(s.output_pixels() * (s.C - s.K)) <
            min_saving * static_cast<double>(s.K * s.C / s.groups)) {
        return false;
    }
    return columns_in_place(s) ||
           static_cast<double>(s.Q()) >= profile.tuned_or("wgrad_gemm_columns_min_width", 16.0);
}

}  // namespace

std::int64_t WeightGradientGemmConfig::gemm_rows(const ConvShapes& s) const {
    return columns ? patch_length(s) : s.K / s.groups;
}

std::int64_t WeightGradientGemmConfig::gemm_columns(const ConvShapes& s) const {
    return columns ? s.K / s.groups : patch_length(s);
}

namespace {

// Whole chunks of near-equal size, each at most what fits `target` bytes at `pixel_bytes` a pixel: ceil(units /
// most) chunks of `unit` pixels (whole output rows where columns are copied: the copy runs along them).
void split_into_chunks(WeightGradientGemmConfig& c, std::int64_t unit, std::int64_t units, std::size_t target,
                       std::size_t pixel_bytes) {
    const std::int64_t most =
        std::clamp<std::int64_t>(static_cast<std::int64_t>(target / (pixel_bytes * size(unit))), 1, units);
    c.chunks_per_image = blocks(units, most);
    c.chunk_pixels = blocks(units, c.chunks_per_image) * unit;
    if (unit > 1) c.chunk_rows = c.chunk_pixels / unit;
}

// Whole images a launch, as many as fit `target` bytes (at least one, at most the batch).
std::int64_t images_that_fit(const ConvShapes& s, std::size_t target, std::size_t pixel_bytes) {
    return std::clamp<std::int64_t>(static_cast<std::int64_t>(target / (pixel_bytes * size(s.P() * s.Q()))), 1, s.N);
}

// x's phases for `rows` output rows: every row they read (the taps' reach below the last) x the row's width and
// the taps' reach past it, C·stride_h·stride_w planes of them (gemm.cl's A_PHASES, gemm_dot.cl's D_PHASES).
struct PhaseGeometry {
    std::int64_t rows, width;
    std::size_t bytes;
};
PhaseGeometry phase_geometry(const ConvShapes& s, std::int64_t rows) {
    const std::int64_t phase_rows = rows + (s.R - 1) * s.dilation_h / s.stride_h;
    const std::int64_t width = s.Q() + (s.S - 1) * s.dilation_w / s.stride_w;
    return {phase_rows, width, size(s.C * s.stride_h * s.stride_w * phase_rows * width) * sizeof(float)};
}
void set_phases(WeightGradientGemmConfig& c, const ConvShapes& s, std::int64_t rows) {
    const PhaseGeometry g = phase_geometry(s, rows);
    c.phase_rows = g.rows, c.phase_width = g.width, c.columns_bytes = g.bytes;
}

// The dot form's lanes: wgrad_gemm_dot_vw, else the tile's.
int dot_lanes(const DeviceProfile& profile, const GemmTile& tile) {
    const int vw = static_cast<int>(profile.tuned_or("wgrad_gemm_dot_vw", static_cast<double>(tile.vw)));
    return vw == 4 || vw == 8 || vw == 16 ? vw : 8;
}

// x's columns read from its stride phases (gemm_dot.cl's D_PHASES), an image's phases copied at a time
// (x's size where the columns are R·S / (stride_h·stride_w) times it), where the filter is larger than the
// stride and output rows hold a vector of lanes (the reduction restarts every Q pixels, its last Q % lanes
// one at a time). Profile key wgrad_gemm_dot_columns_from_phases (default on: only a profile that sets
// wgrad_gemm_dot_min_pixels takes the dot form at all); pocl-cpu-avx512-intel.json's item 20 has the
// measurement. Not where an image's phases and the sum pass the workspace limit (the columns then go in
// chunks), so that the rule (takes_dot) and the plan ask the same question.
bool dot_reads_phases(const ConvShapes& s, const DeviceProfile& profile, int lanes) {
    if (columns_in_place(s) || s.R * s.S <= s.stride_h * s.stride_w || s.Q() < lanes ||
        profile.tuned_or("wgrad_gemm_dot_columns_from_phases", 1.0) == 0.0) {
        return false;
    }
    return phase_geometry(s, s.P()).bytes + size(s.weight_numel()) * sizeof(float) <=
           weight_gradient_workspace_limit(profile);
}

// An image of at least wgrad_gemm_dot_min_pixels (0: never) and dW a group of at most
// wgrad_gemm_dot_max_weights, or of at most wgrad_gemm_dot_phases_max_weights where x's columns come from its
// phases (item 21 of pocl-cpu-avx512-intel.json: ResNet's stem, 9408).
bool takes_dot(const ConvShapes& s, const DeviceProfile& profile, const GemmTile& tile) {
    const double min_pixels = profile.tuned_or("wgrad_gemm_dot_min_pixels", 0.0);
    const double max_weights = profile.tuned_or("wgrad_gemm_dot_max_weights", 0.0);
    const double phases_max_weights = profile.tuned_or("wgrad_gemm_dot_phases_max_weights", max_weights);
    const auto weights = static_cast<double>(s.K / s.groups * patch_length(s));
    return min_pixels > 0.0 && static_cast<double>(s.P() * s.Q()) >= min_pixels &&
           (weights <= max_weights ||
            (weights <= phases_max_weights && dot_reads_phases(s, profile, dot_lanes(profile, tile))));
}

// The dot-product form's chunks: both operands' runs of a chunk's pixels (dy's K and the columns' C·R·S
// floats a pixel), wgrad_gemm_dot_chunk_bytes of them (default 1 MiB, a core's cache; the Intel profile's
// 16 MiB, where a work-item's tiles share each block of pixels from L1 and fewer launches paid more than
// the L2 lost); x's columns copied a chunk at a time, or where x is read in place whole images a launch
// while they fit.
void plan_dot(WeightGradientGemmConfig& c, const ConvShapes& s, const DeviceProfile& profile) {
    c.dot = true;
    c.columns_in_place = columns_in_place(s);
    c.dot_vw = dot_lanes(profile, c.tile);
    // 4 x 6 accumulators where vectors of 16 lanes mean 32 registers (AVX-512); 4 x 3 in 16 (AVX2), where a
    // step's 4 A vectors and a D vector make 17, one spilled: measured in AVX2 code on an Intel Xeon
    // (pocl-cpu-intel.json), res2.reduce.first's weight gradient at N = 8 3.9 -> 2.4 ms against the broadcast
    // GEMM; other tiles there untried.
    // A work-item's tiles keep their sums in private memory between blocks: their count is capped so that
    // those stay within 32 KiB (a core's L1).

    c.dot_mr = static_cast<int>(std::clamp(profile.tuned_or("wgrad_gemm_dot_mr", 4.0), 1.0, 8.0));
    c.dot_nr = static_cast<int>(std::clamp(profile.tuned_or("wgrad_gemm_dot_nr", c.dot_vw == 16 ? 6.0 : 3.0), 1.0, 8.0));
    c.dot_tiles_m = static_cast<int>(std::clamp(profile.tuned_or("wgrad_gemm_dot_tiles_m", 1.0), 1.0, 16.0));
    c.dot_tiles_n = static_cast<int>(std::clamp(profile.tuned_or("wgrad_gemm_dot_tiles_n", 1.0), 1.0, 16.0));
    const auto sums_bytes = [&] {
        return static_cast<std::size_t>(c.dot_tiles_m * c.dot_tiles_n * c.dot_mr * c.dot_nr * c.dot_vw) * sizeof(float);
    };
    while (sums_bytes() > kWeightGradientDotSumsBytes && (c.dot_tiles_m > 1 || c.dot_tiles_n > 1)) {
        (c.dot_tiles_n >= c.dot_tiles_m ? c.dot_tiles_n : c.dot_tiles_m) -= 1;
    }
    c.dot_kb = static_cast<int>(std::clamp(profile.tuned_or("wgrad_gemm_dot_kb", 256.0), 16.0, 65536.0)) / 16 * 16;
    const std::int64_t PQ = s.P() * s.Q();
    const auto column_bytes = c.copies_columns() ? size(s.C * s.R * s.S) * sizeof(float) : 0;
    const auto pixel_bytes = size(s.K + s.C * s.R * s.S) * sizeof(float);
    const auto target = static_cast<std::size_t>(
        profile.tuned_or("wgrad_gemm_dot_chunk_bytes", static_cast<double>(kWeightGradientDotChunkBytes)));
    const std::int64_t unit = c.copies_columns() ? s.Q() : 1;
    // x's phases (dot_reads_phases: within the workspace limit), an image's at a time.
    const std::size_t sum_bytes = size(s.weight_numel()) * sizeof(float);
    if (dot_reads_phases(s, profile, c.dot_vw)) {
        set_phases(c, s, s.P());
        c.columns_from_phases = true;
    }
    if (c.columns_from_phases) {
        c.chunks_per_image = 1;
        c.chunk_pixels = PQ;
        c.chunk_rows = s.P();
        c.workspace_bytes = c.columns_bytes + sum_bytes;
        c.writes_dw = c.chunks(s) == 1 && s.dtype == DataType::FLOAT32;
        return;
    }
    split_into_chunks(c, unit, PQ / unit, target, pixel_bytes);
    if (!c.copies_columns() && c.chunks_per_image == 1) c.images_per_launch = images_that_fit(s, target, pixel_bytes);
    c.columns_bytes = size(c.chunk_pixels) * column_bytes;
    c.workspace_bytes = c.columns_bytes + size(s.weight_numel()) * sizeof(float);
    c.writes_dw = c.chunks(s) == 1 && s.dtype == DataType::FLOAT32;
}

}  // namespace

WeightGradientGemmConfig weight_gradient_gemm_config(const ConvShapes& s, const DeviceProfile& profile) {
    WeightGradientGemmConfig c;
    c.dtype = s.dtype;
    c.tile = gemm_tile(profile, "wgrad_gemm", gemm_tile(profile, "gemm", GemmTile{6, 2, 8, {8, 2}}));
    c.columns_by_rows = profile.tuned_or("im2col_rows", 0) != 0;
    if (takes_dot(s, profile, c.tile)) {
        plan_dot(c, s, profile);
        return c;
    }
    c.columns = takes_columns(s, profile, c.tile);
    c.columns_in_place = c.columns && columns_in_place(s);
    // x's phases in place of its copied columns under a stride the filter is larger than (else the phases
    // copy more than the columns: a 1x1 stride-2 layer would copy 4 planes to read 1), where output rows are
    // at least wgrad_gemm_phases_min_width (default 28) wide: the GEMM's reduction then restarts every Q steps.
    // On 2 cores of an Intel Xeon (family 6 model 207), N = 8, the kernels' cycles under perf (netcl-bench
    // --direction bwd_weights --repeat 10, two runs each, millions, columns copied / phases): the stem (Q = 112)
    // 447, 470 / 297, 319, 342; res3.3x3.stride2 (128 channels, Q = 28) 361, 362 / 215, 262; res4.3x3.stride2
    // (256, Q = 14) 228, 242 / 251, 249, its GEMM 157, 159 / 193, 184. Unmeasured, hence left out of the
    // default: stride-1 layers (their phase is x padded; ResNet's and VGG's run on Winograd) and AVX2 parts,
    // which take it as every CPU does.
    const bool strided = s.stride_h * s.stride_w > 1 && s.R * s.S > s.stride_h * s.stride_w;
    c.columns_from_phases =
        c.columns && !c.columns_in_place && strided &&
        profile.tuned_or("wgrad_gemm_columns_from_phases", profile.type == DeviceType::CPU ? 1.0 : 0.0) != 0.0 &&
        static_cast<double>(s.Q()) >= profile.tuned_or("wgrad_gemm_phases_min_width", 28.0);
    c.transposes_planes = (c.columns || columns_in_place(s)) && c.gemm_columns(s) % 8 == 0;
    if (c.transposes_planes && profile.type == DeviceType::CPU) {  // a CPU's build option (ops/gemm/Gemm1x1Config.cpp)
        c.transpose_prefetch_floats = static_cast<int>(
            std::clamp(profile.tuned_or("wgrad_gemm_transpose_prefetch_floats", 0.0), 0.0, 4096.0));
    }
    c.edge_m = c.gemm_rows(s) < c.tile.mr;
    c.edge_n = c.gemm_columns(s) < c.tile.nr();
    // A GEMM of few tiles (64 x 64: ResNet's res2.reduce.first, 11 row tiles of 6 and one column tile of 64;
    // measured before the Intel profile's dot-product form took that layer and VGG's conv1.1)
    // on the profile's work-groups would leave cores idle (4 x 4: three work-groups for two cores). Halved,
    // the wider side first, until a launch has wgrad_gemm_min_work_groups_per_unit (0: off) work-groups for
    // each compute unit. On 2 cores of an Intel Xeon, res2.reduce.first's weight gradient at N = 8
    // (netcl-bench --shape --direction bwd_weights, netcl / the best oneDNN 3.2, 2 pairs of alternating
    // processes, pocl-cpu-avx512-intel.json's item 12): 4 x 4 0.38, 0.42x; 1 x 1 (4 a unit) 0.52, 0.50x.
    const double per_unit = std::clamp(profile.tuned_or("wgrad_gemm_min_work_groups_per_unit", 0.0), 0.0, 1e6);
    if (per_unit > 0.0) {
        const auto target = static_cast<std::int64_t>(per_unit * std::max<std::uint32_t>(profile.compute_units, 1));
        const std::int64_t column_tiles = blocks(c.gemm_columns(s), c.tile.nr());
        const std::int64_t row_tiles = blocks(c.gemm_rows(s), c.tile.mr);
        auto& wg = c.tile.work_group;
        const auto launched = [&] {
            return blocks(column_tiles, static_cast<std::int64_t>(wg[0])) *
                   blocks(row_tiles, static_cast<std::int64_t>(wg[1])) * s.groups;
        };
        while (launched() < target && (wg[0] > 1 || wg[1] > 1)) {
            if (wg[0] >= wg[1] && wg[0] > 1) {
                wg[0] /= 2;
            } else {
                wg[1] /= 2;
            }
        }
    }
    const std::int64_t PQ = s.P() * s.Q();
    // One pixel's copies, all groups: its patches (dy's with columns), its copied columns, its widened A.
    const auto patch_row_bytes = size(c.gemm_columns(s) * s.groups) * sizeof(float);
    // x's phases: C·stride_h·stride_w floats a pixel, near enough (the taps' reach past the chunk aside).
    const auto column_bytes = !c.copies_columns()    ? 0
                              : c.columns_from_phases ? size(s.C * s.stride_h * s.stride_w) * sizeof(float)
                                                      : size(s.C * s.R * s.S) * sizeof(float);
    c.widens_a = s.dtype == DataType::FLOAT16 && !(c.columns && !c.columns_in_place);
    const auto widened_a_pixel_bytes = c.widens_a ? size(c.gemm_rows(s) * s.groups) * sizeof(float) : 0;
    // Where x's columns are not copied (x in place, or read from its phases) the chunk is nearly all dy's
    // transposed copy, the B that every row tile re-reads while A streams past: wgrad_gemm_dy_chunk_bytes, else
    // wgrad_gemm_chunk_bytes (pocl-cpu-avx512-intel.json's item 18 has the measurement).
    const double chunk_bytes =
        profile.tuned_or("wgrad_gemm_chunk_bytes", static_cast<double>(kWeightGradientChunkBytes));
    const bool copies_dy_alone = c.columns && (c.columns_in_place || c.columns_from_phases);
    const auto chunk_target = static_cast<std::size_t>(
        copies_dy_alone ? profile.tuned_or("wgrad_gemm_dy_chunk_bytes", chunk_bytes) : chunk_bytes);
    const std::int64_t unit = c.copies_columns() ? s.Q() : 1;
    const std::size_t pixel_bytes = patch_row_bytes + column_bytes + widened_a_pixel_bytes;
    split_into_chunks(c, unit, PQ / unit, chunk_target, pixel_bytes);
    // Images of few pixels whose A lies in place (dy, or x of a 1x1 stride-1 layer), one group: whole images a
    // GEMM, the reduction running over them (A_IMAGES), their patches side by side, so that the sum is read
    // and written once a launch rather than once an image. Where P·Q <= wgrad_gemm_fold_images_max_pixels (0:
    // never), as many images as wgrad_gemm_fold_images_bytes of patches hold (default 1 MiB: the patches are
    // every work-group's B, and past the L2 they are re-read from memory); the measurement is in the profile
    // that sets it.
    const double fold_max_pixels = profile.tuned_or("wgrad_gemm_fold_images_max_pixels", 0.0);
    if (s.groups == 1 && !c.copies_columns() && !c.widens_a && c.chunks_per_image == 1 &&
        static_cast<double>(PQ) <= fold_max_pixels) {
        const auto fold_bytes = static_cast<std::size_t>(
            profile.tuned_or("wgrad_gemm_fold_images_bytes", static_cast<double>(kWeightGradientFoldImagesBytes)));
        // Within the workspace limit too, so that folding never turns the implementation down.
        const std::size_t limit = weight_gradient_workspace_limit(profile);
        const std::size_t sum_bytes = size(s.weight_numel()) * sizeof(float);
        const std::size_t room = limit > sum_bytes ? limit - sum_bytes : 0;
        c.images_per_launch = images_that_fit(s, std::min(fold_bytes, room), pixel_bytes);
    }
    c.patches_bytes = size(c.images_per_launch * c.chunk_pixels) * patch_row_bytes;
    if (c.columns_from_phases) {
        set_phases(c, s, c.chunk_pixels / s.Q());  // chunk_rows is 0 where Q is 1
    } else {
        c.columns_bytes = size(c.chunk_pixels) * column_bytes;
    }
    c.widened_a_bytes = size(c.chunk_pixels) * widened_a_pixel_bytes;
    c.workspace_bytes =
        c.patches_bytes + c.columns_bytes + c.widened_a_bytes + size(s.weight_numel()) * sizeof(float);
    c.writes_dw = !c.columns && c.chunks(s) == 1 && s.dtype == DataType::FLOAT32;
    return c;
}

cl::NDRange WeightGradientGemmConfig::patches_global(const ConvShapes& s, std::int64_t pixels) const {
    if (transposes_planes) {
        return cl::NDRange(size(gemm_columns(s) / 8), size(blocks(pixels, 8)), size(s.groups));
    }
    return cl::NDRange(size(gemm_columns(s)), size(blocks(pixels, kWeightGradientPatchRun)), size(s.groups));
}

WeightGradientGemmConfig::ColumnsCopy WeightGradientGemmConfig::columns_copy(const ConvShapes& s,
                                                                            std::int64_t rows) const {
    if (columns_from_phases) return {phase_rows, phase_width, s.stride_h, s.stride_w, 1, 1};
    return {rows, s.Q(), s.R, s.S, s.dilation_h, s.dilation_w};
}

cl::NDRange WeightGradientGemmConfig::columns_global(const ConvShapes& s, std::int64_t rows) const {
    const ColumnsCopy copy = columns_copy(s, rows);
    const std::int64_t lanes = columns_by_rows ? copy.rows : blocks(copy.rows * copy.width, 64) * 64;
    return cl::NDRange(size(lanes), size(s.C * copy.taps_r * copy.taps_s), 1);
}

cl::NDRange WeightGradientGemmConfig::columns_local() const {
    return columns_by_rows ? cl::NDRange(4, 1, 1) : cl::NDRange(64, 1, 1);
}

cl::NDRange WeightGradientGemmConfig::gemm_global(const ConvShapes& s) const {
    if (dot) {
        return cl::NDRange(size(blocks(gemm_columns(s), dot_nr * dot_tiles_n)),
                           size(blocks(gemm_rows(s), dot_mr * dot_tiles_m)),
                           size(s.groups));
    }
    return cl::NDRange(size(blocks(gemm_columns(s), tile.nr())), size(blocks(gemm_rows(s), tile.mr)),
                       size(s.groups));
}

std::vector<ProgramSpec> WeightGradientGemmConfig::programs() const {
    // Every operand float32: A copied (the columns) or widened (half), or a float32 tensor read in place.
    const std::string storage = internal::storage_options(dtype);
    const GemmOperandTypes types{DataType::FLOAT32, DataType::FLOAT32, DataType::FLOAT32};
    const ProgramSpec sums = {"gradient_sums", internal::storage_source() + embedded_source("gradient_sums"), storage,
                              {internal::blend_weight_gradient_kernel(), internal::blend_transposed_kernel(),
                               internal::bias_gradient_kernel()}};
    if (dot) {
        // dy in the layer's type, read in place; the columns copied in float32, or x in place.
        const std::string half = dtype == DataType::FLOAT16 ? "half" : "float";
        const std::string options = storage + " -DDOT_MR=" + std::to_string(dot_mr) + " -DDOT_NR=" +
                                    std::to_string(dot_nr) + " -DDOT_VW=" + std::to_string(dot_vw) +
                                    " -DDOT_TILES_M=" + std::to_string(dot_tiles_m) + " -DDOT_TILES_N=" +
                                    std::to_string(dot_tiles_n) + " -DDOT_KB=" + std::to_string(dot_kb) +
                                    " -DA_TYPE=" + half + " -DD_TYPE=" + (copies_columns() ? "float" : half) +
                                    (columns_from_phases ? " -DD_PHASES" : "");
        std::vector<ProgramSpec> list = {
            {"gemm_dot",
             internal::storage_source() + (columns_from_phases ? embedded_source("phase_taps") : std::string()) +
                 embedded_source("gemm_dot"),
             options,
             {{"gemm_dot", {1, 1, 1}}}},
            sums};
        if (copies_columns()) {
            list.push_back({"im2col", internal::storage_source() + embedded_source("im2col"), storage,
                            {{columns_kernel(), {columns_local()[0], 1, 1}}}});
        }
        return list;
    }
    GemmPacking packing;
    packing.a_images = images_per_launch > 1 || columns_from_phases;
    packing.a_phases = columns_from_phases;
    std::vector<KernelSpec> copies = {{patches_kernel(), {patches_local()[0], patches_local()[1], 1}}};
    if (copies_columns()) copies.push_back({columns_kernel(), {columns_local()[0], 1, 1}});
    std::vector<ProgramSpec> list = {
        {"im2col", internal::storage_source() + embedded_source("im2col"),
         storage + (transpose_prefetch_floats > 0 ? " -DPREFETCH_PLANES=" + std::to_string(transpose_prefetch_floats) : ""),
         copies},
        gemm_program(tile, edge_m, edge_n, /*bias=*/false, 0, false, false, {}, types, packing),
        gemm_program(tile, edge_m, edge_n, /*bias=*/false, 0, false, false, PostOps{}.with_sum(), types, packing),
        sums};
    if (widens_a) list.push_back(internal::widen_program());
    return list;
}

std::string WeightGradientGemmConfig::str() const {
    if (dot) {
        const std::string d = columns_in_place ? "x in place"
                              : columns_from_phases
                                  ? "x's columns read from its " + std::to_string(phase_rows) + " x " +
                                        std::to_string(phase_width) + " stride phases (" + columns_kernel() + ")"
                                  : std::string("x's columns (") + columns_kernel() + ")";
        return std::string("dot-product form, dy in place, ") + d + ", " +
               (images_per_launch > 1 ? std::to_string(images_per_launch) + " images a launch"
                                      : std::to_string(chunks_per_image) + " chunk(s) of " +
                                            std::to_string(chunk_pixels) + " pixels an image") +
               (writes_dw ? " (the GEMM writes dw where beta is 0 or 1)" : "") + ", workspace " +
               std::to_string(workspace_bytes) + " bytes, tile " + std::to_string(dot_mr) + " x " +
               std::to_string(dot_nr) + " rows of " + std::to_string(dot_vw) + " lanes" +
               (dot_tiles_m * dot_tiles_n > 1 ? ", " + std::to_string(dot_tiles_m) + " x " +
                                                    std::to_string(dot_tiles_n) + " tiles a work-item over blocks of " +
                                                    std::to_string(dot_kb) + " pixels"
                                              : "");
    }
    const std::string layout = !columns          ? ""
                               : columns_in_place ? "x in place, dy copied transposed, "
                               : columns_from_phases
                                   ? "x's columns read from its " + std::to_string(phase_rows) + " x " +
                                         std::to_string(phase_width) + " stride phases (" + columns_kernel() +
                                         ") and dy copied transposed, "
                                   : std::string("x's columns (") + columns_kernel() + ") and dy copied transposed, ";
    const std::string planes =
        transposes_planes ? std::string(columns ? "dy's" : "x's") + " planes in 8 x 8 blocks, " : "";
    return layout + planes + (widens_a ? "A widened to float32 a chunk at a time, " : "") +
           (images_per_launch > 1 ? std::to_string(images_per_launch) + " images a GEMM"
                                  : std::to_string(chunks_per_image) + " chunk(s) of " + std::to_string(chunk_pixels) +
                                        " pixels an image") +
           (writes_dw ? " (the GEMM writes dw where beta is 0 or 1)" : "") + ", workspace " +
           std::to_string(workspace_bytes) + " bytes, GEMM " + tile.str() + (edge_m ? ", rows clamped" : "") +
           (edge_n ? ", columns clamped" : "") +
           (transpose_prefetch_floats > 0 ? ", planes prefetched " + std::to_string(transpose_prefetch_floats) + " pixels ahead"
                                          : "");
}

}  // namespace netcl
