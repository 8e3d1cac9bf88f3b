#include "ops/gemm/Gemm1x1Config.hpp"


namespace netcl {

Gemm1x1Config gemm1x1_config(const ConvShapes& s, const DeviceProfile& profile) {
    Gemm1x1Config c;
    // 6 x 16, work-groups of 8 x 2: 0.96 of the per-shape best over the 11
    // stride-1 1x1 layers of ResNet-50 (N = 1 and 8) on PoCL; 4x4 and 1x16
    // within 1%.
    c.tile = gemm_tile(profile, "gemm", GemmTile{6, 2, 8, {8, 2}});
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
