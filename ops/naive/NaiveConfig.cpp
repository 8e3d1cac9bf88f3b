#include "ops/naive/NaiveConfig.hpp"

#include "ops/internal/GradientSums.hpp"
#include "ops/internal/OutputStage.hpp"
#include "ops/internal/Storage.hpp"
#include "runtime/EmbeddedSources.hpp"

namespace netcl {

namespace {
std::size_t size(std::int64_t v) { return static_cast<std::size_t>(v); }
std::int64_t blocks(std::int64_t n, std::int64_t block) { return (n + block - 1) / block; }
}  // namespace

NaiveConfig naive_config(const ConvShapes& s) {
    NaiveConfig config;
    config.direction = s.direction;
    config.post_ops = s.post_ops;
    config.dtype = s.dtype;
    // The channels a work-item's tile spans: the group's outputs forward, its inputs backward data.
    const std::int64_t tiled = s.direction == ConvDirection::BACKWARD_DATA ? s.C / s.groups : s.K / s.groups;
    config.channel_block = tiled >= 4 ? 4 : 1;
    return config;
}

std::string NaiveConfig::build_options() const {
    // Forward keeps the options it always had, so its cached programs stay valid.
    const std::string options = "-DKB=" + std::to_string(channel_block) + internal::storage_options(dtype);
    if (direction == ConvDirection::FORWARD) return options + internal::post_ops_options(post_ops);
    return options + " -DDIRECTION=" + std::to_string(direction == ConvDirection::BACKWARD_DATA ? 1 : 2);
}

const char* NaiveConfig::kernel_name() const {
    switch (direction) {
        case ConvDirection::BACKWARD_DATA: return "conv2d_naive_backward_data";
        case ConvDirection::BACKWARD_WEIGHTS: return "conv2d_naive_backward_weights";
        default: return "conv2d_naive";
    }
}

cl::NDRange NaiveConfig::global(const ConvShapes& s) const {
    switch (direction) {
        case ConvDirection::BACKWARD_DATA:  // column blocks of one phase under the horizontal stride
            return cl::NDRange(size(s.stride_w * blocks(blocks(s.W, s.stride_w), kColumnBlock)), size(s.D * s.H),
                               size(s.N * s.groups * blocks(s.C / s.groups, channel_block)));
        case ConvDirection::BACKWARD_WEIGHTS: return cl::NDRange(size(s.T * s.R * s.S), size(s.C / s.groups), size(s.K));
        default:
            return cl::NDRange(size(blocks(s.Q(), kColumnBlock)), size(s.O() * s.P()),
                               size(s.N * s.groups * blocks(s.K / s.groups, channel_block)));
    }
}

cl::NDRange NaiveConfig::local() const {
    // Backward weights: a work-item per element of dw, whose R x S taps are
    // few (9 for 3x3): work-groups of one tap row's worth would mostly idle.
    return direction == ConvDirection::BACKWARD_WEIGHTS ? cl::NDRange(1, 1, 1) : cl::NDRange(8, 4, 1);
}

ProgramSpec NaiveConfig::program() const {
    const auto local_size = [](const cl::NDRange& range) {
        std::array<std::size_t, 3> sizes{1, 1, 1};
        for (cl_uint i = 0; i < range.dimensions(); ++i) sizes[i] = range[i];
        return sizes;
    };
    std::vector<KernelSpec> kernels{{kernel_name(), local_size(local())}};
    std::string source = internal::post_ops_source() + embedded_source("conv2d_naive");
    if (direction == ConvDirection::BACKWARD_WEIGHTS) {
        kernels.push_back(internal::bias_gradient_kernel());
        source = internal::storage_source() + embedded_source("gradient_sums") + "\n" + source;
    }
    const std::string label = direction == ConvDirection::FORWARD ? "conv2d_naive" : "conv2d_naive " + to_string(direction);
    return {label, source, build_options(), kernels};
}

std::string NaiveConfig::str() const {
    if (direction == ConvDirection::BACKWARD_WEIGHTS) return "one dw element a work-item, local 1x1x1";
    return "KB=" + std::to_string(channel_block) + " QB=" + std::to_string(kColumnBlock) + " local 8x4";
}

}  // namespace netcl
