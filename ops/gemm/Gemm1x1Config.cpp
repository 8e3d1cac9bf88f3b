#include "ops/gemm/Gemm1x1Config.hpp"

#include <algorithm>


namespace netcl {

Gemm1x1Config gemm1x1_config(const ConvShapes& s, const DeviceProfile& profile) {
    Gemm1x1Config c;
    // 6 x 16, work-groups of 8 x 2: 0.96 of the per-shape best over the 11
    // stride-1 1x1 layers of ResNet-50 (N = 1 and 8) on PoCL; 4x4 and 1x16
    // within 1%.
    c.tile = gemm_tile(profile, "gemm", GemmTile{6, 2, 8, {8, 2}});
    // Work-groups one tile wide and as tall as the layer's rows (rounded up to a power of two, so that
    // PoCL, which compiles a kernel per work-group size, builds few more): each 16 pixels' panel of x is
    // then read once for all K, where 8 x 2 work-groups read it again for every 12 channels, and PoCL runs a
    // whole row of work-groups before the next, so an image's x larger than the core's caches came back from
    // memory each time. Taken by every layer of at most gemm1x1_tall_max_row_tiles row tiles, and by a
    // reduction (C >= K) over at least gemm1x1_tall_reduction_min_pixels pixels of at most
    // gemm1x1_tall_reduction_max_row_tiles (pocl-cpu.json: 24, 100, 128); never where a profile or tuned
    // record sets the work-group. On 2 Zen 3 cores, N = 8, netcl-bench, the 1x1 GEMM's time over the
    // implicit GEMM's in the same run (the yardstick: this host's load moves both), two runs each, 8 x 2 /
    // tall: 256 -> 64 at 56x56 1.36 / 0.90 (1 x 16); 256 -> 128 at 56x56 1.18, 1.03 / 0.80, 0.74 (1 x 32);
    // 512 -> 128 at 28x28 1.04 / 0.78; 512 -> 256 0.96, 0.84 / 0.77, 0.77 (1 x 64); 1024 -> 256 at 14x14
    // 1.08, 1.10 / 0.78, 0.87; 1024 -> 512 1.19, 1.09 / 0.88, 0.83 (1 x 128); at N = 1 the reductions
    // 1.20, 1.11 / 0.87, 0.88 and 1.33, 0.99 / 0.90, 0.86. Not an expansion (64 -> 256 at 56x56 0.58, 0.59 /
    // 0.63, 0.65; 128 -> 512 and 256 -> 1024 level or worse), nor 2048 -> 512 over 7x7 (0.91, 0.95 / 1.11,
    // 0.97). Only partly tall (1 x 16 at K = 512, 1 x 22 at K = 256) was no faster than 8 x 2.
    const std::int64_t row_tiles = (s.K / s.groups + c.tile.mr - 1) / c.tile.mr;
    const bool reduction =
        s.C >= s.K && static_cast<double>(s.H * s.W) >= profile.tuned_or("gemm1x1_tall_reduction_min_pixels", 0.0);
    const double tallest = std::max(profile.tuned_or("gemm1x1_tall_max_row_tiles", 0.0),
                                    reduction ? profile.tuned_or("gemm1x1_tall_reduction_max_row_tiles", 0.0) : 0.0);
    const bool work_group_set = profile.tuned.count("gemm_wg0") != 0 || profile.tuned.count("gemm_wg1") != 0;
    if (!work_group_set && row_tiles > static_cast<std::int64_t>(c.tile.work_group[1]) &&
        static_cast<double>(row_tiles) <= tallest) {
        std::size_t height = 1;
        while (height < static_cast<std::size_t>(row_tiles)) height *= 2;
        if (profile.max_work_group_size == 0 || height <= profile.max_work_group_size) c.tile.work_group = {1, height};
    }
    c.edge_m = s.K / s.groups < c.tile.mr;
    c.edge_n = s.H * s.W < c.tile.nr();
    c.bias = s.bias;
    c.post_ops = s.post_ops;
    c.dtype = s.dtype;
    return c;
}

cl::NDRange Gemm1x1Config::global(const ConvShapes& s) const {
    const std::int64_t n = s.H * s.W, m = s.K / s.groups;
    return cl::NDRange(static_cast<std::size_t>((n + tile.nr() - 1) / tile.nr()),
                       static_cast<std::size_t>((m + tile.mr - 1) / tile.mr), static_cast<std::size_t>(s.N));
}

cl::NDRange Gemm1x1Config::local() const { return cl::NDRange(tile.work_group[0], tile.work_group[1], 1); }

ProgramSpec Gemm1x1Config::program() const {
    // A: the weights, float32 (a float16 layer's widened once at set_weights); B x, C y and bias in the layer's type.
    return gemm_program(tile, edge_m, edge_n, bias, 0, false, false, post_ops, {DataType::FLOAT32, dtype, dtype});
}

std::string Gemm1x1Config::str() const {
    return tile.str() + (edge_m ? ", rows clamped" : "") + (edge_n ? ", columns clamped" : "");
}

}  // namespace netcl
