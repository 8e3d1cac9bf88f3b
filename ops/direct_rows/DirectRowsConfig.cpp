#include "ops/direct_rows/DirectRowsConfig.hpp"

#include <algorithm>

#include "ops/internal/OutputStage.hpp"
#include "ops/internal/Storage.hpp"
#include "runtime/EmbeddedSources.hpp"

namespace netcl {

DirectRowsConfig direct_rows_config(const ConvShapes& s, const DeviceProfile& profile) {
    DirectRowsConfig c;
    // 4 channels x 64 outputs in work-groups of 8 rows: on ResNet-50's stem
    // (AVX-512 PoCL, N = 8, one run of a prototype of this kernel) 5.1-5.3 ms
    // against 5.4-7.0 for 8 x 32, 6 x 64 and 3 x 112 outputs.
    c.tile = gemm_tile(profile, "direct_rows", GemmTile{4, 4, 16, {1, 8}});
    // Unstrided rows read each tap's vector from one plane where strided rows alternate between phases: their
    // best tile measured differently (pocl-cpu-avx512-intel.json item 19), so a profile may set it apart.
    if (s.stride_w == 1) c.tile = gemm_tile(profile, "direct_rows_unstrided", c.tile);
    // A float16 layer's tile apart too (prefix + "_float16"): its stores convert each vector to half, and
    // with 8 x 48's 24 zmm accumulators the register allocator spilled into the FMA loop. VGG's conv1.1 on 2
    // cores of an Intel Xeon (netcl-bench --dtype float16 --strategies selector,float32-selector --repeat 9,
    // one run each, ms half / float32): 8 x 48 N = 1 1.55 / 0.67, N = 8 12.58 / 5.56; 6 x 48 0.75 / 0.75 and
    // 5.55 / 5.65 (float32 on 6 x 48 too); 4 x 48 1.14 / 1.11, 7.12 / 7.47 (pocl-cpu-avx512-intel.json).
    if (s.dtype == DataType::FLOAT16) c.tile = gemm_tile(profile, c.tile.prefix + "_float16", c.tile);
    c.S = static_cast<int>(s.S), c.stride_w = static_cast<int>(s.stride_w);
    c.bias = s.bias;
    c.post_ops = s.post_ops;
    c.dtype = s.dtype;
    // Every row an output row reads, and every column phase wide enough for
    // the last tile's vectors (a row narrower than the tile reads past Q into
    // zeros) plus the taps' shift.
    c.plane_h = (s.P() - 1) * s.stride_h + s.R;
    c.plane_w = std::max<std::int64_t>(s.Q(), c.tile.nr()) + (s.S - 1) / s.stride_w;
    c.split_bytes_per_image =
        static_cast<std::size_t>(s.C * c.plane_h * s.stride_w * c.plane_w) * sizeof(float);
    const auto fit = static_cast<std::int64_t>(direct_rows_workspace_limit(profile) /
                                               std::max<std::size_t>(c.split_bytes_per_image, 1));
    c.images_per_pass = std::clamp<std::int64_t>(fit, 1, s.N);
    const std::size_t pass_output_bytes =
        static_cast<std::size_t>(c.images_per_pass * s.K * s.P() * s.Q()) * size_of(s.dtype);
    c.stream_output = internal::stream_output(profile, pass_output_bytes, s.post_ops, s.dtype);
    return c;
}

std::size_t direct_rows_workspace_limit(const DeviceProfile& profile) {
    return static_cast<std::size_t>(profile.tuned_or("direct_rows_workspace_limit_bytes", 64.0 * (1 << 20)));
}

std::size_t DirectRowsConfig::packed_floats(const ConvShapes& s) const {
    const std::int64_t panels = (s.K + tile.mr - 1) / tile.mr;
    return static_cast<std::size_t>(panels * tile.mr * s.C * s.R * s.S);
}

ProgramSpec DirectRowsConfig::program() const {
    std::string options = tile.build_options() + " -DS=" + std::to_string(S) + " -DFSW=" + std::to_string(stride_w);
    if (bias) options += " -DBIAS";
    if (stream_output) options += " -DSTREAM_OUTPUT";
    options += internal::post_ops_options(post_ops) + internal::storage_options(dtype);
    return {"conv_rows", internal::post_ops_source() + embedded_source("vector_lane") + embedded_source("gemm_tile") + embedded_source("conv_rows"), options,
            {{"conv_rows", {tile.work_group[0], tile.work_group[1], 1}},
             {"conv_rows_split", {64, 1, 1}},
             {"conv_rows_pack", {8, 1, 1}}}};
}

std::string DirectRowsConfig::str() const {
    return std::to_string(tile.mr) + " channels x " + std::to_string(tile.nr()) + " outputs a work-item (float" +
           std::to_string(tile.vw) + "), work-group " + std::to_string(tile.work_group[0]) + "x" +
           std::to_string(tile.work_group[1]) + "; input split into " + std::to_string(stride_w) +
           " column phase(s), " + std::to_string(images_per_pass) + " image(s) a pass, workspace " +
           std::to_string(workspace_bytes()) + " bytes" + (stream_output ? internal::kStreamedOutputs : "");
}

}  // namespace netcl
