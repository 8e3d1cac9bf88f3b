#include "ops/naive/NaiveConfig.hpp"

#include "runtime/EmbeddedSources.hpp"

namespace netcl {

NaiveConfig naive_config(const ConvShapes& s) {
    NaiveConfig config;
    config.channel_block = s.K / s.groups >= 4 ? 4 : 1;
    return config;
}

cl::NDRange NaiveConfig::global(const ConvShapes& s) const {
    const std::int64_t kblocks = (s.K / s.groups + channel_block - 1) / channel_block;
    return cl::NDRange(static_cast<std::size_t>((s.Q() + kColumnBlock - 1) / kColumnBlock),
                       static_cast<std::size_t>(s.P()), static_cast<std::size_t>(s.N * s.groups * kblocks));
}

ProgramSpec NaiveConfig::program() const {
    return {"conv2d_naive", embedded_source("conv2d_naive"), build_options(), {{"conv2d_naive", {8, 4, 1}}}};
}

std::string NaiveConfig::str() const {
    return "KB=" + std::to_string(channel_block) + " QB=" + std::to_string(kColumnBlock) + " local 8x4";
}

}  // namespace netcl
