#include "ops/gemm/Gemm1x1Config.hpp"

#include "ops/gemm/PanelGemm.hpp"
#include "ops/internal/OutputStage.hpp"
#include "ops/im2col/Im2colLayout.hpp"

#include <algorithm>


namespace netcl {

double transposed_filters_max_columns(const DeviceProfile& profile) {
    return profile.tuned_or("gemm1x1_transposed_filters_max_columns", 98);
}

Gemm1x1Config gemm1x1_config(const ConvShapes& s, const DeviceProfile& profile) {
    Gemm1x1Config c;
    // 6 x 16, work-groups of 8 x 2: 0.96 of the per-shape best over the 11
    // stride-1 1x1 layers of ResNet-50 (N = 1 and 8) on PoCL; 4x4 and 1x16
    // within 1%.
    c.tile = gemm_tile(profile, "gemm", GemmTile{6, 2, 8, {8, 2}});
    // Work-groups one tile wide and as tall as the layer's rows (rounded up to a power of two, so that PoCL, which
    // compiles a kernel per work-group size, builds few more): each 16 pixels' panel of x is then read once for all K,
    // where 8 x 2 work-groups read it again for every 12 channels, and PoCL runs a whole row of work-groups before the
    // next, so an image's x larger than the core's caches came back from memory each time. Taken by every layer of at
    // most gemm1x1_tall_max_row_tiles row tiles, and by a reduction (C at least gemm1x1_tall_reduction_min_ratio times
    // K, 1 unless a profile says) over at least gemm1x1_tall_reduction_min_pixels pixels of at most
    // gemm1x1_tall_reduction_max_row_tiles (pocl-cpu.json: 24, 100, 128). It replaces the work-group a profile or
    // netcl-tune gives the GEMM; a profile that wants none sets both max_row_tiles keys to 0, as pocl-cpu-avx512.json
    // does. On 2 Zen 3 cores, N = 8, netcl-bench, the 1x1 GEMM's time over the implicit GEMM's in the same run (the
    // yardstick: this host's load moves both), two runs each, 8 x 2 / tall: 256 -> 64 at 56x56 1.36 / 0.90 (1 x 16);
    // 256 -> 128 at 56x56 1.18, 1.03 / 0.80, 0.74 (1 x 32); 512 -> 128 at 28x28 1.04 / 0.78; 512 -> 256 0.96, 0.84 /
    // 0.77, 0.77 (1 x 64); 1024 -> 256 at 14x14 1.08, 1.10 / 0.78, 0.87; 1024 -> 512 1.19, 1.09 / 0.88, 0.83 (1 x 128);
    // at N = 1 the reductions 1.20, 1.11 / 0.87, 0.88 and 1.33, 0.99 / 0.90, 0.86. Not an expansion (64 -> 256 at 56x56
    // 0.58, 0.59 / 0.63, 0.65; 128 -> 512 and 256 -> 1024 level or worse), nor 2048 -> 512 over 7x7 (0.91, 0.95 / 1.11,
    // 0.97). Only partly tall (1 x 16 at K = 512, 1 x 22 at K = 256) was no faster than 8 x 2. On 2 cores of an Intel
    // Xeon (family 6 model 207, AVX-512, 8 x 48 tiles) tall pays from 28x28 and from C = 2K (pocl-cpu-avx512-intel.json
    // has the figures), not where C = K: 64 -> 64 at 56x56, N = 8, 0.80x -> 0.61x of oneDNN.
    // Packed operands (kernels_cl/panels.cl, gemm.cl's A_PANEL and B_PANEL with C_IMAGES): the weights in
    // panels of MR rows once, at set_weights, where the profile says (gemm1x1_pack_weights); x in panels of
    // NR columns across the images, per run, where an image has at most gemm1x1_pack_x_max_pixels output
    // pixels (the pack is a strided 1x1 layer's gather too). Measured on the kernel
    // alone, 2 Zen 3 cores (kernels_cl/gemm.cl has the square case), N = 8, GFLOPS, row-major / weights
    // packed / both packed: res5's 2048 -> 512 over 7x7 60 / - / 157, 512 -> 2048 88 / - / 114; res4's
    // 1024 -> 256 over 14x14 73 (tall) / 76 / 110, 256 -> 1024 81 / 103 / 98; res3's 512 -> 128 over 28x28
    // 104 (tall) / 107 / 105; res2's 256 -> 64 over 56x56 64 (tall) / 98 (tall) / 77, 64 -> 256 70 / 72 / 88.
    // Packing x copies it (one pass), which those kernel-only figures leave out: it pays where x is small
    // beside the work, at few pixels an image.
    // A strided layer (its own limit, gemm1x1_pack_strided_max_pixels) runs only packed: its pixels are not
    // where the GEMM would read them in place. Strided, on the same cores, whole layers (netcl-bench, N = 8,
    // ms, the implicit GEMM / packed): 1024 -> 2048 from 14x14 to 7x7 25.5 / 13.4 (oneDNN 2.6.3 11.9), 512 ->
    // 1024 from 28x28 to 14x14 21.9 / 17.4 (12.1), but 256 -> 512 from 56x56 to 28x28 31.4 / 30.4 (and
    // 0.57x / 0.50x of oneDNN in that run: the pack then took vectors only for runs of whole eights; it now
    // takes every run's eights, and the Intel profile packs that layer: below, and panels.cl). Stride 1 at 14x14: 1024 ->
    // 256 the GEMM 8.3 -> 6.1 plus the pack's 1.7, 256 -> 1024 6.4 -> 6.2 plus 0.9: x packed at 7x7 only.
    // A float16 layer's x is widened to float32 as it is packed, once, where in place the GEMM converts each
    // 16 pixels again for every row tile (three conversions beside a step's 24 FMAs, on the ports the FMAs use):
    // a half layer packs x under its own limit where the profile has one (gemm1x1_pack_x_max_pixels_float16).
    // Stride 1 packs only from gemm1x1_pack_x_min_images images: one image of 14x14 fills 5 panels of 48 for
    // its 196 pixels packed or not, and pays for the copy. pocl-cpu-avx512-intel.json has the figures (ResNet-50's
    // 14x14 layers in half at N = 8 0.86-0.89x -> 0.99-1.17x of float32 netcl; float32 no faster packed).
    // Backward data's filters, transposed (a 1x1 layer's K x C/groups read as C/groups x K), are packed into
    // panels where gemm1x1_pack_transposed_filters says, each step's MR rows one run of a filter: a copy as
    // they lie, where a rotation into a copy transposes them first and reading them in place (A_TRANSPOSED)
    // takes a page a reduction step. The same GEMM, one pass instead of two where the profile packs the
    // weights anyway (pocl-cpu.json has the figures, in AVX2 code); in AVX-512 code on a Xeon, 8 x 48 tiles, the
    // GEMM on panels ran slower than on a rotated copy of the filters (pocl-cpu-avx512.json), and slower still
    // than on the filters read in place with each step's rows prefetched ahead (gemm.cl's PREFETCH_A,
    // gemm1x1_prefetch_transposed_filters_steps: pocl-cpu-avx512-intel.json, item 25).
    // Where the weights are new every run (a training forward) the pack is a pass over them every step, and
    // the profile may read them in place there instead (gemm1x1_training_weights_in_place). In AVX2 code on 2
    // Xeon cores (pocl-cpu + pocl-cpu-intel, netcl-bench --isa avx2 --shape ... --direction train --repeat
    // 5-7, 2 pairs of alternating processes, forward ms packed / in place): N = 1 res5.reduce (2048 -> 512 at
    // 7x7) 2.07, 2.06 / 0.78, 0.78; res5.expand 1.31, 2.02 / 0.72, 0.96; res5.projection (1024 -> 2048,
    // stride 2) 4.14, 3.07 / 1.59, 1.74; res4.reduce (1024 -> 256 at 14x14) 0.77, 0.74 / 0.57, 0.57; res4.expand
    // 0.75, 0.75 / 0.57, 0.58; res3.reduce (512 -> 128 at 28x28) 0.69, 0.63 / 0.56, 0.52; N = 2 res5.reduce
    // 2.31, 2.07 / 1.60, 1.49; N = 8 res5.reduce 6.53, 6.45 / 4.92, 4.62; res5.expand 5.45, 5.58 / 4.68, 4.45;
    // res5.projection 10.9, 12.3 / 9.2, 9.5; res4.reduce 4.99, 5.01 / 4.62, 4.66; res4.expand 4.73, 4.70 /
    // 4.53, 4.37. Inference packs once, at set_weights. Backward data's filters (always new) are read
    // transposed in place under the same key over few columns (transposed_filters_max_columns), each step's
    // rows prefetched ahead where the profile says, and packed from their transpose over more: the same
    // protocol, backward data ms packed / in place (prefetched 16 steps ahead) at N = 1: res5.reduce
    // (49 columns) 2.83, 2.31 / 1.62, 1.32; res5.expand 1.78, 2.32 / 1.63, 1.62; res5.projection 4.42, 3.27 /
    // 4.22, 4.20; but res4.reduce (196 columns) 0.74, 0.79 / 0.85, 0.82 and res5.expand at N = 8 (392) 5.83,
    // 5.70 / 6.51, 6.33 (a rotated copy read in place there).
    c.weights_transposed = s.weights_transposed;
    // Transposed filters are backward data's (its stride phase, a forward problem), which only training runs.
    const bool training_in_place = (s.new_weights_every_run() || s.weights_transposed) &&
                                   profile.tuned_or("gemm1x1_training_weights_in_place", 0.0) > 0.0;
    const bool few_columns = static_cast<double>(s.output_pixels()) <= transposed_filters_max_columns(profile);
    c.pack_weights = s.weights_transposed
                         ? profile.tuned_or("gemm1x1_pack_transposed_filters", 0.0) > 0.0 &&
                               !(training_in_place && few_columns)
                         : profile.tuned_or("gemm1x1_pack_weights", 0.0) > 0.0 && !training_in_place;
    const bool strided = s.stride_h != 1 || s.stride_w != 1;
    const std::string pack_x_key = strided ? "gemm1x1_pack_strided_max_pixels" : "gemm1x1_pack_x_max_pixels";
    const auto half_limit = profile.tuned.find(pack_x_key + "_float16");
    const double pack_x_pixels = s.dtype == DataType::FLOAT16 && half_limit != profile.tuned.end()
                                     ? half_limit->second
                                     : profile.tuned_or(pack_x_key, 0.0);
    const bool enough_images = strided || static_cast<double>(s.N) >= profile.tuned_or("gemm1x1_pack_x_min_images", 1.0);
    c.pack_x = s.groups == 1 && enough_images && static_cast<double>(s.P() * s.Q()) <= pack_x_pixels;
    if (c.pack_x) {
        // In passes of images under im2col's pass target, as im2col-gemm's columns.
        c.images_per_pass = internal::panel_gemm_images_per_pass(
            s, c.tile, std::min(im2col_pass_bytes(profile), im2col_workspace_limit(profile)));
    }
    // In place, an image's pixels fill whole tiles only where they are a multiple of the tile's width: 196
    // (14x14) take 5 tiles of 48, computing 240 columns. With the images folded into the columns (B_IMAGES in
    // kernels_cl/gemm.cl) 8 images' 1568 pixels take 33 tiles, x still read where it lies. Taken where it saves
    // at least gemm1x1_fold_images_min_saving of the columns computed image by image (0: never), for a single
    // group of at least a vector's pixels an image, on the packed path's tall work-groups where the profile gives
    // them (gemm1x1_pack_x_work_group_rows: a profile that folds should; on 8 x 2, each pair of row tiles streams
    // every image's x). On 2 cores of an Intel Xeon, ResNet-50 at N = 8: res4.reduce 0.58-0.61x
    // -> 0.76-0.82x of oneDNN, res4.expand 0.72-0.78x -> 0.82-0.91x (pocl-cpu-avx512-intel.json, item 7).
    const double fold_saving = profile.tuned_or("gemm1x1_fold_images_min_saving", 0.0);
    if (!c.pack_x && !strided && s.groups == 1 && s.N > 1 && fold_saving > 0.0 && s.H * s.W >= c.tile.vw &&
        s.N * s.H * s.W >= c.tile.nr()) {
        const std::int64_t pixels = s.H * s.W, nr = c.tile.nr();
        const double per_image = static_cast<double>(s.N * ((pixels + nr - 1) / nr) * nr);
        const double folded = static_cast<double>((s.N * pixels + nr - 1) / nr * nr);
        c.fold_images = per_image - folded >= fold_saving * per_image * (1.0 - 1e-9);  // a tenth of 480 is 48
    }
    const std::int64_t row_tiles = (s.K / s.groups + c.tile.mr - 1) / c.tile.mr;
    const double min_ratio = profile.tuned_or("gemm1x1_tall_reduction_min_ratio", 1.0);
    const bool reduction = static_cast<double>(s.C) >= min_ratio * static_cast<double>(s.K) &&
                           static_cast<double>(s.H * s.W) >= profile.tuned_or("gemm1x1_tall_reduction_min_pixels", 0.0);
    const double tallest = std::max(profile.tuned_or("gemm1x1_tall_max_row_tiles", 0.0),
                                    reduction ? profile.tuned_or("gemm1x1_tall_reduction_max_row_tiles", 0.0) : 0.0);
    std::size_t height = 1;
    while (height < static_cast<std::size_t>(row_tiles)) height *= 2;
    const bool fits = profile.max_work_group_size == 0 || height <= profile.max_work_group_size;
    if (!c.pack_x && !c.fold_images && row_tiles > static_cast<std::int64_t>(c.tile.work_group[1]) &&
        static_cast<double>(row_tiles) <= tallest && fits) {
        c.tile.work_group = {1, height};
    }
    // Packed x: work-groups one panel wide and gemm1x1_pack_x_work_group_rows row tiles tall (rounded down to a
    // power of two, and to the layer's row tiles rounded up to one; halved until the device takes it), so that a
    // panel of x (NR pixels by C, packed a moment before) serves that many row tiles from the core's caches
    // where 8 x 2 work-groups read it again every 2 row tiles. On 2 cores of an Intel Xeon (family 6 model
    // 207, 8 x 48 tiles), the stride-2 projections at N = 8, median of 3 alternating processes, ms, the
    // implicit GEMM / packed 8 x 2 / packed 1 x 16 / packed 1 x 64: res3's (256 -> 512 from 56x56) 12.4 /
    // 10.4 / 9.4 / 9.4, res4's (512 -> 1024 from 28x28) 8.1 / 8.3 / 7.2 / 6.9 (this host's load moves each
    // figure 10-30% between processes; pocl-cpu-avx512-intel.json has 4 pairs at N = 1 and 8).
    const double packed_rows = profile.tuned_or("gemm1x1_pack_x_work_group_rows", 0.0);
    if ((c.pack_x || c.fold_images) && packed_rows >= 1.0) {
        std::size_t rows = 1;
        while (rows * 2 <= static_cast<std::size_t>(packed_rows) && rows < height) rows *= 2;
        while (profile.max_work_group_size != 0 && rows > profile.max_work_group_size) rows /= 2;
        c.tile.work_group = {1, rows};
    }
    c.edge_m = s.K / s.groups < c.tile.mr;
    c.edge_n = !c.pack_x && !c.fold_images && s.H * s.W < c.tile.nr();
    // x read in place image by image: a tile's columns are a short run in each of C planes, each its own
    // page, more streams than the hardware prefetchers follow; gemm1x1_prefetch_x_rows (0: none) channels
    // ahead, each step prefetches them (kernels_cl/gemm.cl, PREFETCH_B, has the measurement). A CPU's build
    // option: NVIDIA's OpenCL compiler rejects __builtin_prefetch (tools/gpu/README.md), oclgrind cannot run it.
    if (profile.type == DeviceType::CPU && !c.pack_x && !c.fold_images && !c.edge_n) {
        c.prefetch_x_rows = static_cast<int>(std::clamp(profile.tuned_or("gemm1x1_prefetch_x_rows", 0.0), 0.0, 64.0));
    }
    if (profile.type == DeviceType::CPU && c.reads_weights_transposed()) {
        c.prefetch_weights_steps =
            static_cast<int>(std::clamp(profile.tuned_or("gemm1x1_prefetch_transposed_filters_steps", 0.0), 0.0, 64.0));
    }
    c.bias = s.bias;
    c.post_ops = s.post_ops;
    c.dtype = s.dtype;
    // One launch writes a group of every image's y (a pass's images, with x packed).
    const std::int64_t launch_images = c.pack_x ? c.images_per_pass : s.N;
    c.stream_output = internal::stream_output(
        profile, static_cast<std::size_t>(launch_images * (s.K / s.groups) * s.P() * s.Q()) * size_of(s.dtype),
        s.post_ops, s.dtype);
    return c;
}

std::size_t Gemm1x1Config::weight_floats(const ConvShapes& s) const {
    if (pack_weights) return internal::row_panel_floats(s.groups, s.K / s.groups, s.C / s.groups, tile.mr);
    return dtype == DataType::FLOAT16 ? static_cast<std::size_t>(s.weight_numel()) : 0;
}

std::size_t Gemm1x1Config::workspace_bytes(const ConvShapes& s) const {
    return pack_x ? internal::panel_gemm_workspace_bytes(s, tile, images_per_pass) : 0;
}

std::int64_t Gemm1x1Config::columns(const ConvShapes& s) const { return s.H * s.W * (fold_images ? s.N : 1); }

cl::NDRange Gemm1x1Config::global(const ConvShapes& s) const {
    const std::int64_t n = columns(s), m = s.K / s.groups;
    return cl::NDRange(static_cast<std::size_t>((n + tile.nr() - 1) / tile.nr()),
                       static_cast<std::size_t>((m + tile.mr - 1) / tile.mr),
                       static_cast<std::size_t>(fold_images ? 1 : s.N));
}

cl::NDRange Gemm1x1Config::local() const { return cl::NDRange(tile.work_group[0], tile.work_group[1], 1); }

ProgramSpec Gemm1x1Config::program() const {
    // A: the weights, float32 (a float16 layer's widened once at set_weights, or packed); B x (float32 where
    // packed), C y and bias in the layer's type.
    return gemm_program(tile, edge_m, edge_n, bias, 0, false, false, post_ops,
                        {DataType::FLOAT32, pack_x ? DataType::FLOAT32 : dtype, dtype},
                        {pack_weights, pack_x, fold_images, prefetch_x_rows, false, false, stream_output,
                         reads_weights_transposed(), prefetch_weights_steps});
}

std::string Gemm1x1Config::str() const {
    return tile.str() + (edge_m ? ", rows clamped" : "") + (edge_n ? ", columns clamped" : "") +
           (pack_weights ? (weights_transposed ? ", weights in panels from their transpose" : ", weights in panels") : "") +
           (reads_weights_transposed() ? ", weights read transposed" : "") +
           (prefetch_weights_steps > 0 ? " (prefetched " + std::to_string(prefetch_weights_steps) + " steps ahead)" : "") + (pack_x ? ", x in panels across images (" + std::to_string(images_per_pass) + " a pass)" : "") +
           (fold_images ? ", columns across images" : "") +
           (prefetch_x_rows > 0 ? ", x prefetched " + std::to_string(prefetch_x_rows) + " channels ahead" : "") +
           (stream_output ? internal::kStreamedOutputs : "");
}

}  // namespace netcl
