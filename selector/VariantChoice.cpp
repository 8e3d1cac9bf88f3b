#include "selector/VariantChoice.hpp"

#include <algorithm>
#include <utility>

#include "ops/Implementations.hpp"
#include "ops/col2im/Col2imGemmConfig.hpp"
#include "ops/im2col/Im2colGemmConfig.hpp"
#include "ops/winograd/WinogradVariants.hpp"
#include "ops/winograd_gemm/WinogradGemmConfig.hpp"
#include "ops/winograd_wgrad/WinogradWgradConfig.hpp"
#include "selector/Thresholds.hpp"
#include "selector/internal/RuleFactories.hpp"

namespace netcl {

namespace {

// Winograd's variants in the order this profile prefers them: the preferred
// tile first (F(2x2) first when the output is smaller than
// winograd_f4_min_output, where F(4x4) would mostly compute padding, or
// when the batch has fewer F(4x4) tiles than winograd_f4_min_tiles: its
// multiply streams 36 transformed values of each 3x3 filter where F(2x2)
// streams 16, and a few tiles cannot hide that (res5's 512 x 7 x 7 -> 512,
// PoCL, Zen 4, one interleaved run of 9 rounds each, F(2x2) / F(4x4) ms:
// N = 1 (4 tiles of 4x4) 0.87 / 1.17, N = 2 (8) 1.67 / 1.84, N = 4 (16)
// 3.41 / 2.70, N = 8 (32) 5.92 / 3.71; 14x14 at N = 1 (16 tiles) 0.73 /
// 0.69 with C = K = 256 and 3.33 / 2.91 with 512); F(6x6)
// first from winograd_f6_min_output on; for 5x5
// filters winograd_5x5_tile, 4 by default: F(4x4,5x5) against F(9x9,5x5)
// with its quadratic factors (PoCL, Zen 4, one run, N = 1 / 32): AlexNet's
// 5x5 0.352 / 13.8 ms against 0.357 / 10.1, Inception's 0.589 / 12.3
// against 0.601 / 14.2, so neither wins both layers (with 13 real points
// F(9x9,5x5) had also erred 400x more); where the profile sets
// winograd_5x5_tile_by_padding, F(4x4,5x5), F(9x9,5x5) or F(5x5,5x5),
// whichever pads the output least, in that order on a tie (see
// fitted_5x5_tile)); then
// separate transforms (winograd-gemm) before or after the fused kernel as
// winograd_prefer_gemm says; fused before low-local-memory unless the
// profile measured otherwise; __constant weights before __global where the
// profile allows constant weights (and not at all where it does not).
// F(5x5,5x5) does 81 / 25 = 3.2 multiplies and moves as many floats of V
// and M per output where F(4x4,5x5) does 64 / 16 = 4, but its transforms
// fill fewer of a row's lanes when the output is not a multiple of 5:
// Inception's 35x35 (7 tiles of 5 against 9 of 4, padded to 36) ran 1.2x
// faster with F(5x5), AlexNet's 27x27 (6 tiles computing 30 against 7
// computing 28) 1.1x slower (PoCL, AVX-512, N = 32). So the tile that pads
// the output less, the more accurate one on a tie. F(9x9,5x5) (16 products
// a dimension: 3.2 multiplies an output, as accurate as F(4x4,5x5)) joins
// where it pads least: AlexNet's 27x27 (3 tiles of 9) at N = 32 9.7-10.1 ms
// against F(4x4)'s 13.2-13.8 and F(5x5)'s 12.1-12.5, level at N = 1; at
// 18x18 and 54x54 (N = 1 and 8) 1.1-1.3x F(4x4) and 0.99-1.17x F(5x5), at
// 9x9 1.1-1.6x F(4x4), 1.1x F(5x5) at N = 8 and 0.77x at N = 1 (0.087 ms
// against 0.067: a layer that small is all overhead). Padded as much as
// F(4x4) (Inception's 35 -> 36) it was 1.02-1.15x slower, so F(4x4) takes
// a tie with it.
std::int64_t padded_side(std::int64_t side, std::int64_t m) { return (side + m - 1) / m * m; }

constexpr int kFittedOrder[] = {4, 9, 5};  // ties go to the first

int fitted_5x5_tile(const ConvShapes& s) {
    const auto padded = [&](std::int64_t m) { return padded_side(s.P(), m) * padded_side(s.Q(), m); };
    int best = kFittedOrder[0];
    for (const int m : kFittedOrder) {
        if (padded(m) < padded(best)) best = m;
    }
    return best;
}

struct FirstTile {
    int m;
    std::string why;  // for --explain and the plan's reason
};

std::string by(std::int64_t a, std::int64_t b) { return std::to_string(a) + "x" + std::to_string(b); }
std::string output_text(const ConvShapes& s) { return by(s.P(), s.Q()); }

FirstTile first_3x3_tile(const ConvShapes& s, const DeviceProfile& profile) {
    namespace k = threshold_key;
    if (s.spatial_rank == 3) {
        // v3d on 2 Zen 3 cores (netcl-bench --net v3d, N = 1): F(4x4x4) ran
        // conv3 (98 tiles) in 28 ms against F(2x2x2)'s 61 and conv4 (16
        // tiles) in 15.5 against 18.0, but conv5 (4 tiles) in 7.5 against 3.3:
        // its 216-element transforms of a few tiles feed GEMMs too narrow to
        // stream U well.
        const double cube_tiles = static_cast<double>(s.N * (padded_side(s.O(), 4) / 4) * (padded_side(s.P(), 4) / 4) *
                                                    (padded_side(s.Q(), 4) / 4));
        const double cube_min_tiles = threshold(profile, k::winograd3d_f4_min_tiles);
        if (cube_tiles < cube_min_tiles) {
            return {2, "F(2x2x2) first: " + detail::number(cube_tiles) + " F(4x4x4) tiles in the batch < "
                       "winograd3d_f4_min_tiles " + detail::number(cube_min_tiles)};
        }
        return {4, "F(4x4x4) first: " + detail::number(cube_tiles) + " F(4x4x4) tiles in the batch >= "
                   "winograd3d_f4_min_tiles " + detail::number(cube_min_tiles)};
    }
    const double side = static_cast<double>(std::min(s.P(), s.Q()));
    const double f6_min = threshold(profile, k::winograd_f6_min_output);
    const double f4_min = threshold(profile, k::winograd_f4_min_output);
    // In training F(6x6)'s U, 64 values a filter (7.1 times the weights), is written every step: on 2 Xeon
    // cores (pocl-cpu-avx512-intel, netcl-bench --direction train, one interleaved run, ms F(2x2) / F(4x4) /
    // F(6x6)) at 28x28 with C = K = 512 N = 1 (25 F(6x6) tiles) 16.1 / 18.6 / 20.3, backward data 17.8 / 19.8 /
    // 21.6, N = 8 (200) 69.7 / 54.1 / 55.9; 128 channels N = 1 0.97 / 0.98 / 1.05; at 56x56 with 256 N = 1
    // (100) 12.5 / 10.0 / 9.0. Below winograd_training_f6_min_tiles it takes the smaller tiles' rules.
    const double f6_tiles = static_cast<double>(s.N * (padded_side(s.P(), 6) / 6) * (padded_side(s.Q(), 6) / 6));
    const double f6_training_min_tiles = threshold(profile, k::winograd_training_f6_min_tiles);
    const bool f6_carried = !s.new_weights_every_run() || f6_tiles >= f6_training_min_tiles;
    if (side >= f6_min && f6_carried) {
        return {6, "F(6x6) first: output " + output_text(s) + " >= winograd_f6_min_output " + detail::number(f6_min) +
                       (s.new_weights_every_run() && f6_training_min_tiles > 0
                            ? " and " + detail::number(f6_tiles) + " F(6x6) tiles >= winograd_training_f6_min_tiles " +
                                  detail::number(f6_training_min_tiles)
                            : "")};
    }
    if (side < f4_min) {
        return {2, "F(2x2) first: output " + output_text(s) + " < winograd_f4_min_output " + detail::number(f4_min)};
    }
    const double f4_tiles = static_cast<double>(s.N * (padded_side(s.P(), 4) / 4) * (padded_side(s.Q(), 4) / 4));
    const double f4_min_tiles = threshold(profile, k::winograd_f4_min_tiles);
    const std::string f6_passed =
        side >= f6_min ? " (" + detail::number(f6_tiles) + " F(6x6) tiles < winograd_training_f6_min_tiles " +
                             detail::number(f6_training_min_tiles) + ")"
                       : "";
    if (f4_tiles < f4_min_tiles) {
        return {2, "F(2x2) first: " + detail::number(f4_tiles) + " F(4x4) tiles in the batch < winograd_f4_min_tiles " +
                       detail::number(f4_min_tiles) + ": too few to share its transformed weights"};
    }
    // In training (a training forward, and backward data, which only training runs) the weights, and so
    // U, are new every step: 36 values a filter transformed and written each step against F(2x2)'s 16. On
    // 2 Xeon cores (pocl-cpu-avx512-intel, netcl-bench --direction train, new weights every run, one
    // interleaved run, F(2x2) / F(4x4) ms), backward data at 14x14: C = K = 512 at N = 1 (16 tiles) 9.5 /
    // 15.8, N = 8 (128) 25.0 / 26.9; 256 at N = 1 2.3 / 3.2, N = 8 5.9 / 6.2; 7x7, 512 at N = 8 (32 tiles)
    // 12.3 / 17.1; the forward at 7x7, 512: N = 4 (16 tiles) 7.0 / 13.0, N = 8 9.5 / 13.7. Inference sets
    // its weights once and keeps winograd_f4_min_tiles alone.
    const double training_min_tiles = threshold(profile, k::winograd_training_f4_min_tiles);
    if (s.new_weights_every_run() && f4_tiles < training_min_tiles) {
        return {2, "F(2x2) first: " + detail::number(f4_tiles) + " F(4x4) tiles in the batch < "
                   "winograd_training_f4_min_tiles " + detail::number(training_min_tiles) +
                   ": too few to carry a U transformed every training step" + f6_passed};
    }
    const int m = threshold(profile, k::winograd_tile) == 2 ? 2 : 4;
    return {m, "F(" + by(m, m) + ") first: winograd_tile" + f6_passed};
}

FirstTile first_5x5_tile(const ConvShapes& s, const DeviceProfile& profile) {
    namespace k = threshold_key;
    if (threshold(profile, k::winograd_5x5_tile_by_padding) != 0) {
        const auto padded = [&](int m) { return by(padded_side(s.P(), m), padded_side(s.Q(), m)); };
        const int m = fitted_5x5_tile(s);
        std::string why = "F(" + by(m, m) + ",5x5) first: it pads the output " + output_text(s) + " to " + padded(m);
        for (const int other : kFittedOrder) {
            if (other != m) why += ", F(" + by(other, other) + ",5x5) to " + padded(other);
        }
        return {m, why + " (winograd_5x5_tile_by_padding)"};
    }
    const int preferred = static_cast<int>(threshold(profile, k::winograd_5x5_tile));
    const int m = preferred == 9 || preferred == 5 ? preferred : 4;
    return {m, "F(" + by(m, m) + ",5x5) first: winograd_5x5_tile"};
}

// The weight gradient's dy tile: F(3x3,4x4) does 36 products for 16 dy
// pixels where F(3x3,2x2) does 16 for 4 (2.25 against 4 a pixel), but its
// sums, K x C x 36 floats, are written by the multiply and read back by the
// output transform whatever the tile count, so a few tiles cannot carry
// them. VGG-16 at N = 1 on 2 Zen 3 cores (PoCL 3.1, netcl-bench, median of
// 5 interleaved rounds), F(3x3,2x2) / F(3x3,4x4) ms: conv1.2 (3136 F(4)
// tiles) 27.3 / 16.5, conv3.2 (196) 16.2 / 10.1, conv4.2 (49) 16.0 / 11.4,
// conv5 (16) 4.9 / 6.5; hence winograd_wgrad_f4_min_tiles 32. A 3-D layer's
// tiles run on its depth slices as images (ops/as_2d/): N·O of them.
FirstTile first_wgrad_tile(const ConvShapes& s, const DeviceProfile& profile) {
    const double dy_tiles = static_cast<double>(s.N * s.O() * ((s.P() + 3) / 4) * ((s.Q() + 3) / 4));
    const double min_dy_tiles = threshold(profile, threshold_key::winograd_wgrad_f4_min_tiles);
    if (dy_tiles < min_dy_tiles) {
        return {2, "F(3x3,2x2) first: " + detail::number(dy_tiles) + " dy tiles of 4x4 in the batch < "
                   "winograd_wgrad_f4_min_tiles " + detail::number(min_dy_tiles) + ": too few to carry its sums"};
    }
    return {4, "F(3x3,4x4) first: " + detail::number(dy_tiles) + " dy tiles of 4x4 in the batch >= "
               "winograd_wgrad_f4_min_tiles " + detail::number(min_dy_tiles)};
}

}  // namespace

std::string winograd_tile_preference(const ConvShapes& s, const DeviceProfile& profile) {
    if (s.direction == ConvDirection::BACKWARD_WEIGHTS) return first_wgrad_tile(s, profile).why;
    return s.R == 5 && s.S == 5 ? first_5x5_tile(s, profile).why : first_3x3_tile(s, profile).why;
}

namespace {

std::vector<Variant> ranked_winograd(const std::vector<Variant>& offered, const ConvShapes& s,
                                     const DeviceProfile& profile) {
    namespace k = threshold_key;
    const int first_tile = first_3x3_tile(s, profile).m;
    const int first_wgrad = first_wgrad_tile(s, profile).m;
    const int first_5x5 = first_5x5_tile(s, profile).m;
    const bool low_first = threshold(profile, k::winograd_prefer_low_local_memory) != 0;
    const bool try_constant = threshold(profile, k::winograd_constant_weights) != 0;
    const bool gemm_first = threshold(profile, k::winograd_prefer_gemm) != 0;
    // The preferred tile, then the smaller ones nearest first (fewer
    // transforms' worth of error: where an accuracy bound passes over the
    // preferred tile, the next one down), then the larger ones.
    const auto tile_rank = [](int m, int first) {
        return m == first ? 0 : m < first ? 100 * (first - m) : 1000 + 100 * (m - first);
    };
    const auto rank = [&](const Variant& id) {
        if (const auto t = winograd_gemm_tile(id)) {
            return tile_rank(t->m, t->r == 5 ? first_5x5 : first_tile) + (gemm_first ? 0 : 20);
        }
        // The CLBlast multiply after the engine's at the same tile: not yet timed where the engine is on.
        if (const auto dy_tile = winograd_wgrad_dy_tile(id)) {
            return tile_rank(*dy_tile, first_wgrad) + (winograd_wgrad_on_clblast(id) ? 5 : 0);
        }
        const auto v = winograd_variant(id);
        if (!v) return 100000;  // another Winograd implementation's variant: after these, in list order
        return tile_rank(v->m, first_tile) + (gemm_first ? 20 : 0) + (v->low_local_memory == low_first ? 0 : 10) +
               (v->constant_weights ? 0 : 1);
    };
    std::vector<Variant> ranked;
    for (const Variant& id : offered) {
        const auto v = winograd_variant(id);
        if (v && v->constant_weights && !try_constant) continue;
        ranked.push_back(id);
    }
    std::stable_sort(ranked.begin(), ranked.end(), [&](const Variant& a, const Variant& b) { return rank(a) < rank(b); });
    return ranked;
}

}  // namespace

std::int64_t reduced_channels(const ConvShapes& s) {
    return (s.direction == ConvDirection::BACKWARD_DATA ? s.K : s.C) / s.groups;
}

// Backward data over few columns: col2im-gemm's GEMM (W^T dy, an image at a
// time) reads the filters in place where its W^T is not in panels (float32;
// ops/col2im/Col2imGemmConfig.hpp), where as forward they are rotated into a
// copy and Winograd transforms them, a pass over them every step. It reads
// them again for each image, a filter's run of K/groups floats 4·C/groups·R·S
// bytes from the next, so only a few images gain. On 2 Xeon cores
// (pocl-cpu-avx512-intel, netcl-bench --direction train, one interleaved run
// of 9 layers x N = 1, 2, 4, ms the plan before / col2im-gemm): res5's 3x3 at
// 7x7 (C = K = 512) N = 1 4.58 / 3.21, N = 2 4.65 / 4.31, N = 4 7.71 / 8.45;
// its 3x3 stride 2 (dy 7x7) 6.61 / 3.50, 5.11 / 4.58, 9.65 / 10.67; res4's
// 3x3 at 14x14 (256) N = 1 2.00 / 1.98, N = 2 2.09 / 2.69; res3's at 28x28
// (128) N = 1 1.02 / 1.57; 1x1 layers lose (res5.projection 3.17 / 3.92,
// 512 -> 2048 at 7x7 1.23 / 1.32). VGG's conv5 (14x14, 512) at N = 1, its
// Winograd F(2x2) / col2im-gemm, in a run of its own: 6.41 / 4.81. Hence 196
// columns over at most 2 images in pocl-cpu-avx512-intel.json.
std::optional<std::string> few_columns_backward_data_first_on_col2im(const ConvShapes& s,
                                                                      const DeviceProfile& profile) {
    namespace k = threshold_key;
    // 3x3 filters of one group, as measured.
    if (s.direction != ConvDirection::BACKWARD_DATA || s.dtype != DataType::FLOAT32 || s.spatial_rank != 2 ||
        s.R != 3 || s.S != 3 || s.groups != 1) {
        return std::nullopt;
    }
    const auto columns = static_cast<double>(s.output_pixels());
    const double max_columns = threshold(profile, k::col2im_gemm_training_max_columns);
    const double max_images = threshold(profile, k::col2im_gemm_training_max_images);
    if (columns > max_columns || static_cast<double>(s.N) > max_images) return std::nullopt;
    // Only where col2im-gemm takes the layer and reads its filters in place (not a W^T in panels): else
    // Winograd stays, as measured.
    const Variant col2im("col2im-gemm");
    if (why_not(col2im, s, profile) || !col2im_gemm_config(s, profile).weights_in_place) return std::nullopt;
    return "backward data over " + detail::number(columns) + " columns <= col2im_gemm_training_max_columns " +
           detail::number(max_columns) + " in " + std::to_string(s.N) + " image(s) <= col2im_gemm_training_max_images " +
           detail::number(max_images) + ": col2im-gemm first, its GEMM reading the filters in place";
}

// IM2COL's variants in the implementations' order, except that a 1x1 layer
// with a long reduction over enough pixels (no shipped profile now), or with
// few pixels (pocl-cpu-avx512), goes to the implicit GEMM before the 1x1 GEMM
// where the profile says so; the numbers are below.
namespace {
// `offered` with `id` moved to the front (as it is where `id` is not offered).
std::vector<Variant> first(std::vector<Variant> offered, const char* id) {
    const auto it = std::find(offered.begin(), offered.end(), Variant(id));
    if (it != offered.end()) std::rotate(offered.begin(), it, it + 1);
    return offered;
}
}  // namespace

std::vector<Variant> ranked_im2col(std::vector<Variant> offered, const ConvShapes& s, const DeviceProfile& profile) {
    namespace k = threshold_key;
    // Backward data of a layer with few input channels on col2im-gemm first
    // where the profile says so: as forward, each stride phase is a forward
    // layer of C/groups output channels, along which every forward kernel
    // vectorises (ResNet's stem: 3 of 16 lanes). On 2 Zen 3 cores (PoCL 3.1,
    // netcl-bench, one interleaved run) the implicit GEMM / col2im-gemm /
    // oneDNN 2.6.3 ms: the stem at N = 1 14.0 / 7.2 / 5.1, at N = 8 107.8 /
    // 48.4 / 33.9; VGG's conv1.1 (C = 3, stride 1) 11.8 / 9.5 / 5.2; but C =
    // 16 (3x3 stride 2 at 112x112) 0.82 / 2.30, and C = 64-256 2-3x slower
    // (the column matrix's gather): pocl-cpu.json's 3.
    // So does backward data over few columns where few_columns_backward_data_first_on_col2im says (above).
    if ((s.direction == ConvDirection::BACKWARD_DATA &&
         static_cast<double>(s.C / s.groups) <= threshold(profile, k::col2im_gemm_max_channels)) ||
        few_columns_backward_data_first_on_col2im(s, profile)) {
        return first(std::move(offered), "col2im-gemm");
    }
    // A short reduction (VGG's conv1.1: C = 3, 3x3, 27 steps) goes to im2col
    // + the GEMM engine first where the profile says so: the implicit GEMM
    // stores each tile's outputs scalar and strided by P*Q after only 27
    // steps (conv1.1 on the AVX-512 PoCL profile: implicit 5.4 ms,
    // im2col-gemm 0.61); ResNet's stem (147 steps) runs level either way.
    if (static_cast<double>(reduced_channels(s) * s.R * s.S) <= threshold(profile, k::im2col_gemm_max_reduction)) {
        return first(std::move(offered), "im2col-gemm");
    }
    // A filter larger than 1x1 over few pixels an image (one group) goes to im2col-gemm first where the
    // profile says so: there its columns are the GEMM's B panels across the images, and its weights packed
    // panels of MR rows (ops/im2col/Im2colGemmConfig.hpp), one GEMM over every image's pixels, where the
    // implicit GEMM's tiles read taps a row apart and store scalar outputs P*Q apart. On 2 Zen 3 cores
    // (netcl-bench --repeat 3, one interleaved run, ms, the implicit GEMM / im2col-gemm in panels / oneDNN
    // 2.6.3's jit:avx2) at N = 8: res5's 3x3 stride 2 (14x14 -> 7x7, C = K = 512) 46.8 / 17.0 / 18.6, res4's
    // (28x28 -> 14x14, 256) 21.4 / 17.9 / 16.2, but res3's (56x56 -> 28x28, 128) 20.8 / 25.7 / 17.0 and the
    // stem (7x7 stride 2 to 112x112) 31.8 / 31.2 / 12.2; at N = 1 res5's 4.79 / 2.84 / 2.75. Stride 1 too
    // (where Winograd is not taken): res5's 3x3 at 7x7 45.3 / 17.3 / 19.2. Backward data (through its stride
    // phases), the implicit GEMM / im2col-gemm / the faster oneDNN at N = 8: res5's 33.4 / 20.3 / 19.5, res4's
    // 30.6 / 29.8 / 17.8 (at N = 1 3.40 / 3.43 / 2.19). pocl-cpu.json: 196 pixels.
    // So does a forward filter over few input channels at any size (ResNet's stem, C = 3: the implicit GEMM's
    // tiles run its 147 steps a tap at a time), once the pack reads a tap's run of an output row as one input
    // row (kernels_cl/panels.cl): on the same Zen 3, the stem at N = 8 the implicit GEMM 33-39 ms, im2col-gemm
    // in panels 25-27 (pack 0.4-1.0 and GEMM 1.6-2.3 ms an image), oneDNN 2.6.3 12-17; at N = 1 5.4 / 3.4 /
    // 2.2. Forward only: backward data reaches im2col-gemm as its stride phases, whose smaller filters the
    // reduction rule above would judge differently (a few-channel dx has col2im-gemm's rule). pocl-cpu.json:
    // 3 channels.
    // Where the weights are new every run, the few-pixel rule only from im2col_gemm_panels_training_min_columns
    // columns in the batch: the weights' panels are packed again every step, a pass over them that one image
    // of few pixels cannot carry. In AVX2 code on 2 Xeon cores (netcl-bench --isa avx2 --direction train,
    // pocl-cpu + pocl-cpu-intel, alternating processes, ms im2col-gemm in panels / the implicit GEMM):
    // res5's 3x3 stride 2 (49 columns) forward N = 1 5.25, 4.83 / 3.22, 3.07 (3 more pairs 3.83, 3.46, 3.51
    // / 3.13, 3.41, 3.27), backward data (phases of 49 columns) 5.64, 5.87 / 5.03, 5.06 (5.49, 5.31, 5.63 /
    // 5.16, 5.22, 5.35); at N = 2 (98) forward 6.91, 6.95 / 6.49, 7.76, backward data 8.29, 8.28 / 8.52,
    // 10.62; at N = 8 (392) forward 19.0, 17.0 / 17.3, 17.0; res4's (196) at N = 1 forward 1.99, 2.06 /
    // 2.38, 2.25. Inference keeps the rule at N = 1 (res5's 1.98, 1.95 / 1.86, 2.08). pocl-cpu.json: 98.
    // A training forward whose weights im2col-gemm reads where they lie (im2col_gemm_training_weights_in_place,
    // ops/im2col/Im2colGemmConfig.cpp has the measurement) packs no weights, so nothing is left to carry.
    const auto batch_columns = static_cast<double>(s.output_pixels());  // here and below
    const bool panels_carried =
        !s.new_weights_every_run() ||
        im2col_gemm_config(s, profile).weights_in_place ||
        batch_columns >= threshold(profile, k::im2col_gemm_panels_training_min_columns);
    const bool few_pixels = panels_carried && static_cast<double>(s.P() * s.Q()) <=
                                                  threshold(profile, k::im2col_gemm_panels_max_pixels);
    const bool few_channels =
        s.direction == ConvDirection::FORWARD &&
        static_cast<double>(s.C / s.groups) <= threshold(profile, k::im2col_gemm_panels_max_channels);
    if (s.R * s.S > 1 && s.groups == 1 && (few_pixels || few_channels)) {
        return first(std::move(offered), "im2col-gemm");
    }
    // Where the weights are new every run (a training forward, backward data) the implicit GEMM repacks
    // them every step, a pass over them that few columns cannot carry. So a filter larger than 1x1 over at
    // most im2col_gemm_training_max_columns columns in the batch goes to im2col-gemm first (weights in
    // panels too, but as its GEMM reads them), and where gemm1x1_training_never_yields the 1x1 GEMM never
    // yields to the implicit GEMM (the rules below were measured with the weights set once). On 2 Xeon cores (pocl-cpu-avx512-intel,
    // netcl-bench --direction train, one interleaved run, ms implicit / im2col-gemm / 1x1 GEMM), res5's
    // 3x3 at 7x7 (C = K = 512) forward N = 1 5.84 / 2.90, N = 2 6.23 / 4.40, backward data N = 1 8.30 /
    // 4.82; its 3x3 stride 2 forward N = 1 5.35 / 3.07, N = 8 12.18 / 15.35, backward data N = 1 7.12 /
    // 5.24, N = 8 14.68 / 17.14 (hence 196 columns: four 7x7 images); the 1x1 layers at 7x7, forward N = 1
    // 2048 -> 512 2.02 / 1.08 / 1.08, 512 -> 2048 1.78 / 1.29 / 1.26, N = 8 5.94 / 6.27 / 4.80 and 5.38 /
    // 5.78 / 4.78; the stride-2 projection (1024 -> 2048, 14x14 -> 7x7) N = 1 4.63 / 2.46 / 2.90, N = 8
    // 12.28 / 11.75 / 7.80, backward data N = 8 14.54 / 14.24 / 12.13.
    if (s.new_weights_every_run()) {
        if (s.R * s.S > 1 && s.groups == 1 &&
            batch_columns <= threshold(profile, k::im2col_gemm_training_max_columns)) {
            return first(std::move(offered), "im2col-gemm");
        }
        if (threshold(profile, k::gemm1x1_training_never_yields) != 0) return offered;
    }
    // The channel rule never in float16: the 1x1 GEMM reads half x directly in vectors (vload_half8), where
    // the implicit GEMM widens it to a float32 copy first. On 2 Zen 3 cores (netcl-bench, one interleaved run, half, ms
    // implicit / 1x1 GEMM): 1024x14x14 K256 at N = 8 10.8 / 8.9, at N = 1 1.17 / 1.02; 2048x7x7 K512 at N = 8
    // 15.4 / 8.3, at N = 1 1.92 / 1.02; 512x7x7 K2048 at N = 8 12.2 / 7.6.
    // In float32, on 2 Zen 3 cores (netcl-bench --direction train, one interleaved run, ms implicit / 1x1
    // GEMM at N = 8, then N = 1): C = 1024 at 14x14 K256 forward 10.9 / 11.4 and 0.89 / 1.06, K512 18.3 / 22.0
    // and 1.90 / 2.22; backward data with K = 1024 at 14x14 (256 channels of dx) 9.6 / 11.0 and 1.18 / 1.33.
    // Over 7x7 pixels the 1x1 GEMM wins in both directions: 2048x7x7 K512 forward 11.1 / 10.2 and 1.73 / 1.46,
    // backward data 11.3 / 9.7; 512x7x7 K2048 forward 9.6 / 8.7 and 1.28 / 1.16; the stride-2 projection's
    // backward data (2048 channels of dy at 7x7) 23.8 / 22.4 and 4.78 / 4.16. The older rule (C >= 1024 or at
    // most 64 pixels) predated the 1x1 GEMM's 6x16 tile. Then the 1x1 GEMM's reductions went to work-groups
    // as tall as the layer (ops/gemm/Gemm1x1Config.cpp): C = 1024 at 14x14 at N = 8 then ran at 0.78-0.91x
    // of the implicit GEMM's time (K256) and 0.75-0.88x (K512), and pocl-cpu.json stopped yielding
    // (gemm1x1_max_channels 1e9).
    // pocl-cpu-avx512.json still sends outputs of at most 64 pixels to the implicit GEMM (measured on Zen 4;
    // the rule above was measured on Zen 3 alone), and in float16 too: on 2 cores of an Intel Xeon (family
    // 6 model 207, AVX-512, netcl-bench, one interleaved run, half, ms 1x1 GEMM / implicit) 2048x7x7 K512
    // at N = 8 8.16 / 5.62, at N = 1 1.07 / 0.75; 512x7x7 K2048 at N = 8 8.19 / 4.97 (float32's implicit
    // GEMM 5.88, 0.68 and 4.91), where the 1x1 GEMM's 8 x 48 tiles cover 49 pixels with one ragged panel.
    const auto pixels = static_cast<double>(s.P() * s.Q());
    const bool many_channels = s.dtype != DataType::FLOAT16 &&
                               reduced_channels(s) >= threshold(profile, k::gemm1x1_max_channels) &&
                               pixels >= threshold(profile, k::gemm1x1_min_pixels_to_yield);
    const bool few_pixels_yield = pixels <= threshold(profile, k::gemm1x1_max_pixels_to_yield);
    if (!many_channels && !few_pixels_yield) return offered;
    const auto gemm = std::find(offered.begin(), offered.end(), Variant("gemm-1x1"));
    const auto implicit = std::find(offered.begin(), offered.end(), Variant("implicit-gemm"));
    if (gemm != offered.end() && implicit != offered.end() && gemm < implicit) std::rotate(gemm, gemm + 1, implicit + 1);
    return offered;
}

std::vector<Variant> candidate_variants(Kernel kernel, const ConvShapes& s, const DeviceProfile& profile) {
    const std::vector<Variant> offered = variants_of(kernel);
    switch (kernel) {
        case Kernel::CONV2D_WINOGRAD: return ranked_winograd(offered, s, profile);
        case Kernel::IM2COL: return ranked_im2col(offered, s, profile);
        default: return offered;
    }
}

VariantChoice best_variant(Kernel kernel, const ConvShapes& s, const DeviceProfile& profile) {
    VariantChoice choice;
    for (const Variant& v : candidate_variants(kernel, s, profile)) {
        auto reason = why_not(v, s, profile);
        if (!reason) reason = beyond_error_bound(v, profile);
        if (!reason) {
            choice.variant = v;
            return choice;
        }
        // Shape-level reasons (filter size, stride) repeat for every variant: say them once.
        if (choice.why_not.find(*reason) == std::string::npos) {
            choice.why_not += (choice.why_not.empty() ? "" : "; ") + v.id + ": " + *reason;
        }
    }
    return choice;
}

std::optional<std::string> beyond_error_bound(const Variant& variant, const DeviceProfile& profile) {
    const double bound = threshold(profile, threshold_key::max_error_factor);
    const double factor = implementation_of(variant).error_factor(variant);
    if (bound > 0 && factor > 1 && factor > bound) {
        return "its error factor " + detail::number(factor) + " exceeds max_error_factor " + detail::number(bound) +
               " (the accuracy bound)";
    }
    return std::nullopt;
}

}  // namespace netcl
