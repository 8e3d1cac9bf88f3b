#pragma once
// Internal: how wgrad-gemm computes one layer's weight gradient on netcl's
// GEMM engine -- the configuration both its strategy and its descriptor read.
//
// dW_g = sum over images n and pixel chunks of dY_{n,g}'s chunk columns
// (K/groups x pixels, NCHW as it lies) x the chunk's patches (pixels x
// C/groups·R·S, kernels_cl/im2col.cl's im2col_patches): a row-major GEMM per
// chunk, or per images_per_launch whole images (gemm.cl's A_IMAGES), batched over groups, the first writing a float32 sum and every
// later one adding to it in its output stage (POST_SUM), in chunk order;
// gradient_sums.cl's blend_weight_gradient then blends it into dW (beta, the
// layer's type; one chunk in all, the GEMM writes dw itself: writes_dw). No atomics: the same dw bit for bit on every run. A
// chunk's patches are sized to stay in the caches between the copy that
// writes them and the GEMM that reads them (a whole image's were 115 MB on
// VGG's conv1.2 and ran at 11 GFLOPS, 2 MiB chunks at 21); one patch buffer
// serves every chunk in turn. Tried: the patches written in the GEMM's B
// panels (gemm.cl's B_PANEL, one GEMM a group), which streams B in order:
// VGG-16 at N = 1 ran at 0.31x oneDNN's backward weights against
// 0.41-0.46x row-major (Zen 3, depth-weighted, interleaved rounds; one run
// panelled, two row-major), every layer slower. Also tried: each chunk's
// GEMM writing a partial gradient of its own, a pass's partials (up to 32
// MiB) summed at once: on ResNet-50's 7x7 1x1 layers at N = 8 (4 MiB
// partials) 10.8-11.0 ms one sum against 13.1-25.1 (2048 -> 512) and
// 9.4-9.4 against 8.9-13.1 (512 -> 2048), the larger layers level within
// this host's noise (Zen 3, 2 runs each, alternating processes); and the
// workspace is now one sum, not a pass of them.
//
// Or the other way round (columns): dW's transpose = x's columns (C/groups·R·S
// x pixels, forward's im2col layout, kernels_cl/im2col.cl's im2col or
// im2col_rows a chunk of output rows at a time) x dy copied transposed
// (pixels x K/groups, im2col_patches of dy under a 1x1 filter), the blend
// transposing the sum back (8 x 8 blocks a work-item). A 1x1 stride-1 unpadded layer's columns are x
// itself, read in place: a copy of K floats a pixel instead of C, the
// smaller where K <= C (ResNet's reductions, C = 4K). Elsewhere it copies
// C·R·S + K floats a pixel against the patches' C·R·S, but in rows as
// forward's im2col does, where the patches are written across. Which one:
// WeightGradientGemmConfig.cpp, with the measurements.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"
#include "netcl/DeviceProfile.hpp"
#include "netcl/OpenCL.hpp"
#include "ops/ProgramSpec.hpp"
#include "ops/gemm/GemmTile.hpp"

namespace netcl {

struct WeightGradientGemmConfig {
    GemmTile tile;
    bool columns = false;               // A = x's columns, B = dy copied transposed: dW transposed
    bool columns_in_place = false;      // ... the columns being x itself (1x1, stride 1, unpadded)
    bool columns_by_rows = false;       // ... copied by im2col_rows (profile key im2col_rows), else im2col
    // ... or read in place from x's stride phases (gemm.cl's A_PHASES), a chunk's phase rows copied by that
    // kernel under a stride_h x stride_w filter: phase_rows (the chunk's output rows and the taps' reach below
    // them) x phase_width a plane, C·stride_h·stride_w planes. Profile key wgrad_gemm_columns_from_phases
    // (default: on for CPUs; a GPU's is unmeasured). ResNet's stem copied 147 floats a pixel as columns and
    // 12 as phases; the measurement is in WeightGradientGemmConfig.cpp. The dot form reads them too (D_PHASES,
    // kernels_cl/gemm_dot.cl: x's columns are its D), an image's phases at a time (profile key
    // wgrad_gemm_dot_columns_from_phases).
    bool columns_from_phases = false;
    std::int64_t phase_rows = 0, phase_width = 0;
    bool edge_m = false;                // the GEMM's M (K/groups; C/groups·R·S with columns) < MR
    bool edge_n = false;                // its N (C/groups·R·S; K/groups with columns) < NR
    std::int64_t chunk_pixels = 1;      // output pixels a chunk reduces over (the last of an image may be fewer)
    std::int64_t chunk_rows = 0;        // with copied columns: whole output rows a chunk (chunk_pixels = rows x Q)
    std::int64_t chunks_per_image = 1;
    std::size_t patches_bytes = 0;      // a launch's copy (its images' side by side): x's patches, or dy's transposed (B) with columns
    std::size_t columns_bytes = 0;      // one chunk's copied columns of x (A), or its phases, after the patches
    // The patches are a 1x1 stride-1 unpadded view's planes transposed (dy's with columns, else x's of such
    // a layer), their length a multiple of 8: transpose_planes, 8 x 8 blocks a work-item
    // (kernels_cl/im2col.cl), in place of im2col_patches. ResNet-50's res2 weight gradients at N = 8
    // (netcl-bench --direction bwd_weights, median of 7, two alternating runs each, on 2 cores of an Intel
    // Xeon, family 6 model 207, AVX-512, profile pocl-cpu-avx512), im2col_patches / blocks, ms: 256 -> 64
    // (dy's planes) 8.28, 8.39 / 7.80, 7.50; 64 -> 256 (x's planes) 8.80, 8.81 / 7.81, 7.97; 64 -> 64
    // 4.32, 4.22 / 3.87, 4.20.
    bool transposes_planes = false;
    // transpose_planes prefetching each plane this many floats (pixels) ahead (0: none; profile key
    // wgrad_gemm_transpose_prefetch_floats): its work-groups read 8 channels' planes, a run of 8 pixels in each,
    // and a pass over a pixel block reads every channel's plane, more streams than the hardware prefetchers
    // follow (kernels_cl/im2col.cl has the measurement).
    int transpose_prefetch_floats = 0;
    // A float16 A read from a tensor (dy, or x in place) is widened a chunk at a time into the workspace,
    // after the columns: the GEMM broadcasts each A element to NR lanes at every step, and PoCL converts a
    // lone half in ~10 integer operations (kernels_cl/widen.cl). Read in place, ResNet-50's 1x1 weight
    // gradients in half ran at 0.27-0.33x of float32 (N = 8, Zen 3).
    bool widens_a = false;
    std::size_t widened_a_bytes = 0;
    std::size_t workspace_bytes = 0;    // the patches, the columns, the widened A, then the float32 sum (dW's size)
    // One launch in all (N = 1 with the image's pixels in one, or every image in one GEMM), float32, dW not
    // transposed: the GEMM writes dw
    // itself where beta is 0 (a plain store) or 1 (its output stage adding dw's contents, POST_SUM), and
    // neither the sum nor the blend is touched. The blend re-reads and rewrites dW's size after the GEMM:
    // on res5.projection (1024 -> 2048, 7x7 outputs, N = 1) 2M floats, <1 ms of the layer's 3.5 (Zen 3).
    // Tried with x's columns too, the GEMM storing its C transposed into dw a lane at a time: every layer
    // slower than the transposing blend, res5.reduce (2048 -> 512, 7x7, N = 1) 1.90-2.16 -> 3.00-3.35 ms,
    // res4.reduce (1024 -> 256, 14x14) 0.91-1.13 -> 1.47-1.58 (Zen 3, two alternating runs).
    // Also tried: whole images a chunk where an image has few pixels (each image's A rows copied side by
    // side into the workspace, its patches after the last's, one GEMM over all), so that res5's layers at
    // N = 8 re-read and rewrite their 4-8 MiB sums once, not 8 times, and write dw from the one GEMM:
    // res5.reduce 7.9-9.9 -> 10.7-11.4 ms, res5.expand 7.7-9.3 -> 9.4-9.8, res5.projection level,
    // res5's 3x3 stride 2 33.7-36.7 -> 28.9-30.7 (Zen 3, two alternating runs): sums of that size stay in
    // the 32 MiB L3 between the chunks, and the copy of A was the larger cost. Without the copy (A read where
    // each image lies, images_per_launch, gemm.cl's A_IMAGES) it pays on an Intel Xeon's 7x7 layers: the
    // profile's item 15.
    bool writes_dw = false;
    DataType dtype = DataType::FLOAT32;  // of x, dy, dw and db; the copies and the sum are float32
    // Or in dot-product form (kernels_cl/gemm_dot.cl): dW = dY · colsᵀ with dy's planes read where they lie
    // and x's columns copied as forward's im2col lays them (x itself for a 1x1 stride-1 unpadded layer), so
    // that neither is transposed; the sum is dW's own layout. Where an image's P·Q is at least the profile's
    // wgrad_gemm_dot_min_pixels (0: never) and dW a group at most wgrad_gemm_dot_max_weights; the
    // measurements are in the profile that sets them (pocl-cpu-avx512-intel.json) and tools/netcl-bench/SPEED.md.
    bool dot = false;
    int dot_mr = 4, dot_nr = 6, dot_vw = 16;  // a work-item's rows of dy x rows of the columns, their lanes
    int dot_tiles_m = 1, dot_tiles_n = 1;    // a work-item's tiles, in turn over each block of dot_kb pixels
    int dot_kb = 256;
    std::int64_t images_per_launch = 1;       // whole images a launch, A (and D) read in place (1: none)

    // The GEMM launches in all: each a chunk of an image's pixels, or images_per_launch whole images.
    std::int64_t chunks(const ConvShapes& shapes) const {
        return (shapes.N + images_per_launch - 1) / images_per_launch * chunks_per_image;
    }
    // Launch `index`'s first image, its first pixel and pixel count an image, and its images.
    struct Launch {
        std::int64_t image, pq0, pixels, images;
    };
    Launch launch(const ConvShapes& shapes, std::int64_t index) const {
        const std::int64_t image = index / chunks_per_image * images_per_launch;
        const std::int64_t pq0 = index % chunks_per_image * chunk_pixels;
        return {image, pq0, std::min(chunk_pixels, shapes.P() * shapes.Q() - pq0),
                std::min(images_per_launch, shapes.N - image)};
    }
    bool copies_columns() const { return (columns || dot) && !columns_in_place; }
    // The GEMM's rows (M) and columns (N) a group, and the copied patch length (= N).
    std::int64_t gemm_rows(const ConvShapes& shapes) const;
    std::int64_t gemm_columns(const ConvShapes& shapes) const;
    cl::NDRange patches_global(const ConvShapes& shapes, std::int64_t pixels) const;
    cl::NDRange patches_local() const { return transposes_planes ? cl::NDRange(1, 8, 1) : cl::NDRange(4, 16, 1); }
    const char* patches_kernel() const { return transposes_planes ? "transpose_planes" : "im2col_patches"; }
    // The copy of a chunk of `rows` output rows' columns (one image): forward's column matrix of the layer
    // over those rows, or with phases of a stride_h x stride_w filter at unit dilation over phase_rows x
    // phase_width outputs (every chunk's, so that the GEMM's offsets hold).
    struct ColumnsCopy {
        std::int64_t rows, width, taps_r, taps_s, dilation_h, dilation_w;
    };
    ColumnsCopy columns_copy(const ConvShapes& shapes, std::int64_t rows) const;
    cl::NDRange columns_global(const ConvShapes& shapes, std::int64_t rows) const;
    cl::NDRange columns_local() const;
    const char* columns_kernel() const { return columns_by_rows ? "im2col_rows" : "im2col"; }
    cl::NDRange gemm_global(const ConvShapes& shapes) const;  // batched over groups
    cl::NDRange gemm_local() const {
        return dot ? cl::NDRange(1, 1, 1) : cl::NDRange(tile.work_group[0], tile.work_group[1], 1);
    }
    // The patch expansion, the GEMM (writing; adding), the sums (dW's and the bias gradient).
    std::vector<ProgramSpec> programs() const;
    std::string str() const;
};

// The most a dot-form work-item's tiles keep in private memory between blocks of pixels.
inline constexpr std::size_t kWeightGradientDotSumsBytes = std::size_t{32} << 10;
// A GEMM over whole images: the most patches it copies, where the profile sets no wgrad_gemm_fold_images_bytes.
inline constexpr std::size_t kWeightGradientFoldImagesBytes = std::size_t{1} << 20;
// The dot form's chunk (both operands' runs) where the profile sets no wgrad_gemm_dot_chunk_bytes.
inline constexpr std::size_t kWeightGradientDotChunkBytes = std::size_t{1} << 20;
// A chunk's patches where the profile sets no wgrad_gemm_chunk_bytes.
inline constexpr std::size_t kWeightGradientChunkBytes = std::size_t{2} << 20;
// Pixels a work-item of the patch copy takes in turn (kernels_cl/im2col.cl,
// im2col_patches), with work-groups of 4 patch columns x 16 runs: the
// weight gradient of a 1x1 layer (256 -> 64 channels at 56x56, N = 1) took
// 5.3-6.5 ms with a work-item an element (16 x 4 work-groups), 2.9 ms so;
// 16 x 4 work-groups of runs 6.3 ms (PoCL vectorises across dim 0: the
// lanes then read 16 channel planes apart), 1 x 64 3.0 ms. A 3x3 layer of
// 64 channels: 11.9 -> 6.3 ms (Zen 3, netcl-bench, median of 7). Tried and
// slower: 16 x 16 tiles transposed through local memory (reads along a row
// of x, writes along a patch row, a barrier between): 4.7 / 10.0 / 2.6 ms
// against these runs' 3.4 / 6.7 / 1.8 on that 1x1 layer, that 3x3 and
// res4.reduce (PoCL keeps every work-item's state across the barrier).
inline constexpr std::int64_t kWeightGradientPatchRun = 16;

WeightGradientGemmConfig weight_gradient_gemm_config(const ConvShapes& shapes, const DeviceProfile& profile);
// The workspace cap: profile value wgrad_gemm_workspace_limit_bytes, else a
// quarter of the device's largest allocation.
std::size_t weight_gradient_workspace_limit(const DeviceProfile& profile);

}  // namespace netcl
