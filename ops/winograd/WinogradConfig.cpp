#include "ops/winograd/WinogradConfig.hpp"

#include <algorithm>
#include <cstdio>

namespace netcl {

namespace {
std::int64_t round_up(std::int64_t value, std::int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }
}  // namespace

WinogradConfig winograd_config(const WinogradVariant& v) {
    WinogradConfig c;
    c.variant = v;
    c.alpha = v.m + v.r - 1;
    // BT x BC is a multiple of the work-group size (block_k / 8) x alpha^2, so
    // the input transform gives every work-item the same number of tiles.
    // Exactly: PoCL runs a phase where some work-items skip their tile
    // several times slower (measured: F(4x4) BK=128 BC=36, half the
    // work-items idle, 2.4x slower than BK=64 BC=36).
    // Fused: 16.1 KiB (F(2x2)) and 40.6 KiB (F(4x4)) fit NVIDIA's 48 KiB.
    // Low-local: 8 KiB (F(2x2)) and 10.3 KiB (F(4x4)), under 16 KiB. A larger
    // BK means fewer work-groups transforming the same input tiles (measured
    // on PoCL: F(2x2) BK 64 -> 128 and F(4x4) BK 32 -> 64 each cut 15-20%).
    const bool f4 = v.m == 4;
    if (v.low_local_memory) {
        c.block_k = f4 ? 8 : 16, c.block_tiles = 8, c.block_c = f4 ? 9 : 8;
    } else {
        c.block_k = f4 ? 64 : 128, c.block_tiles = 8, c.block_c = f4 ? 36 : 32;
    }
    // Phase 3 stages M through local memory at most 32 output channels at a
    // time, so the staging stays at alpha^2 x BT x 32 floats however large BK is.
    c.stage_k = std::min(c.block_k, 32);
    const auto a2 = static_cast<std::size_t>(c.alpha * c.alpha);
    c.v_row_floats = static_cast<std::size_t>(c.block_c * c.block_tiles + 1);
    const std::size_t staging = a2 * static_cast<std::size_t>(c.block_tiles * c.stage_k);
    c.local_floats = std::max(a2 * c.v_row_floats, staging);
    return c;
}

cl::NDRange WinogradConfig::local() const {
    return cl::NDRange(static_cast<std::size_t>(block_k / 8), static_cast<std::size_t>(alpha * alpha), 1);
}

std::int64_t WinogradConfig::padded_k(const ConvShapes& s) const { return round_up(s.K / s.groups, block_k); }
std::int64_t WinogradConfig::padded_c(const ConvShapes& s) const { return round_up(s.C / s.groups, block_c); }

std::size_t WinogradConfig::weight_bytes(const ConvShapes& s) const {
    return static_cast<std::size_t>(alpha * alpha) * static_cast<std::size_t>(s.groups) *
           static_cast<std::size_t>(padded_c(s)) * static_cast<std::size_t>(padded_k(s)) * sizeof(float);
}

cl::NDRange WinogradConfig::global(const ConvShapes& s) const {
    const std::int64_t tiles = s.N * ((s.P() + variant.m - 1) / variant.m) * ((s.Q() + variant.m - 1) / variant.m);
    const std::int64_t tile_blocks = (tiles + block_tiles - 1) / block_tiles;
    const std::size_t kv = static_cast<std::size_t>(block_k / 8);
    return cl::NDRange(kv * static_cast<std::size_t>(padded_k(s) / block_k), static_cast<std::size_t>(alpha * alpha),
                       static_cast<std::size_t>(tile_blocks));
}

std::string WinogradConfig::build_options() const {
    std::string options = "-DBK=" + std::to_string(block_k) + " -DBT=" + std::to_string(block_tiles) +
                          " -DBC=" + std::to_string(block_c) + " -DSK=" + std::to_string(stage_k) +
                          " -DV_ESTRIDE=" + std::to_string(v_row_floats) +
                          " -DLOCAL_FLOATS=" + std::to_string(local_floats);
    if (variant.constant_weights) options += " -DU_CONSTANT";
    return options;
}

std::string WinogradConfig::str() const {
    char text[160];
    std::snprintf(text, sizeof text, "F(%dx%d,%dx%d) BK=%d BT=%d BC=%d, %zu work-items, %.1f KiB local, U %s",
                  variant.m, variant.m, variant.r, variant.r, block_k, block_tiles, block_c, work_group_size(),
                  static_cast<double>(local_bytes()) / 1024.0, variant.constant_weights ? "__constant" : "__global");
    return text;
}

}  // namespace netcl
