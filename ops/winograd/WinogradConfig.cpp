#include "ops/winograd/WinogradConfig.hpp"

#include <algorithm>
#include <cstdio>

#include "ops/winograd/WinogradMatrices.hpp"
#include "ops/winograd/WinogradSource.hpp"
#include "ops/internal/OutputStage.hpp"
#include "ops/internal/Storage.hpp"
#include "runtime/EmbeddedSources.hpp"

namespace netcl {

namespace {

std::int64_t round_up(std::int64_t value, std::int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }
std::int64_t divide_up(std::int64_t value, std::int64_t by) { return (value + by - 1) / by; }

std::string block_key(int m, const char* what) { return "winograd_f" + std::to_string(m) + "_block_" + what; }

}  // namespace

std::vector<std::string> winograd_profile_keys() {
    std::vector<std::string> keys = {"winograd_c_tail", "winograd_min_work_groups", "winograd_f6_max_c_slice"};
    for (const int m : {2, 4, 6})
        for (const char* what : {"k", "tiles", "c"}) keys.push_back(block_key(m, what));
    return keys;
}

WinogradConfig winograd_config(const WinogradVariant& v, const DeviceProfile& profile) {
    WinogradConfig c;
    c.variant = v;
    c.alpha = winograd_matrices(v.m, v.r).alpha;  // m + r - 1: the fused kernel takes real points only
    // BT x BC is a multiple of the work-group size (block_k / 8) x alpha^2, so
    // the input transform gives every work-item the same number of tiles.
    // Exactly: PoCL runs a phase where some work-items skip their tile
    // several times slower (measured: F(4x4) BK=128 BC=36, half the
    // work-items idle, 2.4x slower than BK=64 BC=36).
    // Fused: 16.1 KiB (F(2x2)) and 40.6 KiB (F(4x4)) fit NVIDIA's 48 KiB.
    // Low-local: 8 KiB (F(2x2)) and 10.3 KiB (F(4x4)), under 16 KiB. A larger
    // BK means fewer work-groups transforming the same input tiles (measured
    // on PoCL: F(2x2) BK 64 -> 128 and F(4x4) BK 32 -> 64 each cut 15-20%).
    // A device's profile may set the fused blocks (the NVIDIA profile does,
    // from the ptxas register counts of tests/nvptx).
    // F(6x6) (alpha^2 = 64 work-items per K lane): fused BK=32 BT=8 BC=32,
    // 64.3 KiB of local memory (CPUs; over NVIDIA's 48 KiB); low-local BK=8
    // BT=4 BC=8, 8.3 KiB, half the work-items transforming a tile each.
    const int m = v.m;
    if (v.low_local_memory) {
        c.block_k = m == 2 ? 16 : 8, c.block_tiles = m == 6 ? 4 : 8, c.block_c = m == 4 ? 9 : 8;
    } else {
        c.block_k = static_cast<int>(profile.tuned_or(block_key(m, "k"), m == 2 ? 128 : m == 4 ? 64 : 32));
        c.block_tiles = static_cast<int>(profile.tuned_or(block_key(m, "tiles"), 8));
        c.block_c = static_cast<int>(profile.tuned_or(block_key(m, "c"), m == 4 ? 36 : 32));
    }
    // Phase 3 stages M through local memory at most 32 output channels at a
    // time, so the staging stays at alpha^2 x BT x 32 floats however large BK is.
    c.stage_k = std::min(c.block_k, 32);
    const auto a2 = static_cast<std::size_t>(c.alpha * c.alpha);
    c.v_row_floats = static_cast<std::size_t>(c.block_c * c.block_tiles + 1);
    const std::size_t staging = a2 * static_cast<std::size_t>(c.block_tiles * c.stage_k);
    c.local_floats = std::max(a2 * c.v_row_floats, staging);
    c.c_tail = profile.tuned_or("winograd_c_tail", 0) != 0;
    c.min_work_groups = static_cast<std::int64_t>(profile.tuned_or("winograd_min_work_groups", 0));
    // Accuracy: F(6x6) fused as one fp32 sum over C = 512 measured 2.69e-3 on
    // VGG's conv4.2 (above twice Lavin & Gray's F(4x4), 2.08e-3); in slices
    // of 128 channels added by the reduction kernel, as the sliced GEMM does.
    if (m == 6) c.max_c_slice = static_cast<std::int64_t>(profile.tuned_or("winograd_f6_max_c_slice", 128));
    return c;
}

cl::NDRange WinogradConfig::local() const {
    return cl::NDRange(static_cast<std::size_t>(block_k / 8), static_cast<std::size_t>(alpha * alpha), 1);
}

std::int64_t WinogradConfig::padded_k(const ConvShapes& s) const { return round_up(s.K / s.groups, block_k); }
std::int64_t WinogradConfig::padded_c(const ConvShapes& s) const {
    return round_up(s.C / s.groups, c_tail ? c_chunk() : block_c);
}
std::int64_t WinogradConfig::tiles(const ConvShapes& s) const {
    return s.N * divide_up(s.P(), variant.m) * divide_up(s.Q(), variant.m);
}
std::int64_t WinogradConfig::tile_blocks(const ConvShapes& s) const { return divide_up(tiles(s), block_tiles); }

std::int64_t WinogradConfig::c_slice(const ConvShapes& s) const {
    const std::int64_t cg = s.C / s.groups, steps = divide_up(cg, block_c);
    const std::int64_t groups = (padded_k(s) / block_k) * tile_blocks(s);
    std::int64_t wanted = min_work_groups > groups ? divide_up(min_work_groups, groups) : 1;
    if (max_c_slice > 0) wanted = std::max(wanted, divide_up(cg, max_c_slice));
    const std::int64_t slices = std::clamp<std::int64_t>(wanted, 1, steps);
    return divide_up(steps, slices) * block_c;
}

std::int64_t WinogradConfig::splits(const ConvShapes& s) const { return divide_up(s.C / s.groups, c_slice(s)); }

std::size_t WinogradConfig::weight_bytes(const ConvShapes& s) const {
    return static_cast<std::size_t>(alpha * alpha) * static_cast<std::size_t>(s.groups) *
           static_cast<std::size_t>(padded_c(s)) * static_cast<std::size_t>(padded_k(s)) * sizeof(float);
}

std::size_t WinogradConfig::workspace_bytes(const ConvShapes& s) const {
    const std::int64_t n = splits(s);
    return n > 1 ? static_cast<std::size_t>(n) * static_cast<std::size_t>(s.output_numel()) * sizeof(float) : 0;
}

cl::NDRange WinogradConfig::global(const ConvShapes& s) const {
    const std::size_t kv = static_cast<std::size_t>(block_k / 8);
    return cl::NDRange(kv * static_cast<std::size_t>(padded_k(s) / block_k), static_cast<std::size_t>(alpha * alpha),
                       static_cast<std::size_t>(tile_blocks(s) * splits(s)));
}

std::string WinogradConfig::build_options() const {
    std::string options = "-DBK=" + std::to_string(block_k) + " -DBT=" + std::to_string(block_tiles) +
                          " -DBC=" + std::to_string(block_c) + " -DSK=" + std::to_string(stage_k) +
                          " -DV_ESTRIDE=" + std::to_string(v_row_floats) +
                          " -DLOCAL_FLOATS=" + std::to_string(local_floats);
    if (variant.constant_weights) options += " -DU_CONSTANT";
    if (c_tail) options += " -DC_TAIL -DC_CHUNK=" + std::to_string(c_chunk());
    return options;
}

std::string WinogradConfig::str(const ConvShapes& s) const {
    char text[200];
    std::snprintf(text, sizeof text, "F(%dx%d,%dx%d) BK=%d BT=%d BC=%d, %zu work-items, %.1f KiB local, U %s",
                  variant.m, variant.m, variant.r, variant.r, block_k, block_tiles, block_c, work_group_size(),
                  static_cast<double>(local_bytes()) / 1024.0, variant.constant_weights ? "__constant" : "__global");
    std::string out = text;
    if (splits(s) > 1) out += ", C split in " + std::to_string(splits(s)) + " slices of " + std::to_string(c_slice(s));
    if (c_tail) out += ", exact C";
    return out;
}

ProgramSpec WinogradConfig::program(const ConvShapes& s) const {
    const WinogradVariant& v = variant;
    ProgramSpec spec;
    spec.label = "winograd F(" + std::to_string(v.m) + "x" + std::to_string(v.m) + "," + std::to_string(v.r) + "x" +
                 std::to_string(v.r) + ")";
    spec.source = internal::storage_source() + internal::post_ops_source() +
                  winograd_cl_prelude(winograd_matrices(v.m, v.r)) + embedded_source("winograd_weights") +
                  embedded_source("winograd_fused");
    // float32 keeps the options it always had; a half layer whose C is split writes float32 partials.
    const bool half_partials = s.dtype == DataType::FLOAT16 && splits(s) > 1;
    spec.options = build_options() + internal::post_ops_options(s.post_ops) + internal::storage_options(s.dtype) +
                   (half_partials ? " -DPARTIAL_FLOAT" : "");
    spec.kernels = {{"winograd_fused", {static_cast<std::size_t>(block_k / 8), static_cast<std::size_t>(alpha * alpha), 1}},
                    {"winograd_weights", {weights_work_group(), 1, 1}},
                    {"winograd_reduce", {64, 1, 1}}};
    return spec;
}

}  // namespace netcl
