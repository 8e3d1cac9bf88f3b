#include "ops/implicit_gemm/ImplicitGemmConv.hpp"

#include <algorithm>

#include "ops/internal/KernelLaunch.hpp"
#include "ops/internal/Widen.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "implicit-gemm";
}  // namespace

ImplicitGemmConv::ImplicitGemmConv(std::shared_ptr<Context> context, const ConvShapes& shapes,
                                   const ImplicitGemmConfig& config)
    : context_(std::move(context)), shapes_(shapes), config_(config) {
    const ProgramSpec spec = config_.program();
    const cl::Program program = context_->programs().get_source(spec.label, spec.source, spec.options);
    conv_ = internal::make_kernel(program, "conv_kvec");
    pack_ = internal::make_kernel(program, "conv_kvec_pack");
    if (shapes_.dtype == DataType::FLOAT16) {
        const ProgramSpec widen = internal::widen_program();
        widen_ = internal::make_kernel(context_->programs().get_source(widen.label, widen.source, widen.options),
                                       widen.kernels.front().name.c_str());
    }
    // Allocated with the strategy (a layer that cannot hold it falls back before enqueueing anything).
    packed_ = Tensor::empty(context_, {static_cast<std::int64_t>(config_.packed_floats_per_group(shapes_)) * shapes_.groups});
}

void ImplicitGemmConv::set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) {
    internal::check_weights(kName, shapes_, weights, bias);
    const ConvShapes& s = shapes_;
    const auto per_group = static_cast<std::int64_t>(config_.packed_floats_per_group(s));
    // A 3-D filter packs as a 2-D one of T*R rows (kernels_cl/conv_kvec.cl).
    const std::int64_t cg = s.C / s.groups, kg = s.K / s.groups, crs = cg * s.T * s.R * s.S;
    const std::int64_t padded_k = (kg + config_.tile.nr() - 1) / config_.tile.nr() * config_.tile.nr();
    for (std::int64_t g = 0; g < s.groups; ++g) {
        internal::set_args(pack_, "conv_kvec_pack", weights.buffer(),
                           internal::offset_of(weights) + static_cast<cl_ulong>(g * kg * crs), packed_.buffer(),
                           static_cast<cl_ulong>(g * per_group), static_cast<int>(kg), static_cast<int>(cg),
                           static_cast<int>(s.T * s.R));
        internal::launch(context_->queue(), pack_, "conv_kvec_pack",
                         cl::NDRange(static_cast<std::size_t>(padded_k / ImplicitGemmConfig::kPackFilters),
                                     static_cast<std::size_t>((crs + ImplicitGemmConfig::kPackWeights - 1) /
                                                              ImplicitGemmConfig::kPackWeights)),
                         cl::NDRange(config_.pack_work_group()[0], 1), chain);
    }
    bias_ = s.bias ? *bias : Tensor{};
    has_weights_ = true;
}

void ImplicitGemmConv::enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace,
                               internal::EventChain& chain) {
    NETCL_REQUIRE(has_weights_, "implicit-gemm: enqueue before set_weights; expected weights first");
    internal::check_io(kName, shapes_, x, y);
    const ConvShapes& s = shapes_;
    // A float16 input is read from its float32 copy in the workspace (kernels_cl/widen.cl).
    cl::Buffer input = x.buffer();
    cl_ulong input_offset = internal::offset_of(x);
    if (s.dtype == DataType::FLOAT16) {
        NETCL_REQUIRE(workspace.buffer() && workspace.bytes >= x.numel() * sizeof(float) &&
                          workspace.offset_bytes % sizeof(float) == 0,
                      "implicit-gemm: a float16 layer needs a workspace of " +
                          std::to_string(x.numel() * sizeof(float)) + " bytes for its widened input");
        input = workspace.buffer;
        input_offset = workspace.offset_bytes / sizeof(float);
        internal::enqueue_widen(context_->queue(), widen_, x, input, input_offset, chain);
    }
    // Per channel: the input's D*H*W and the output's O*P*Q floats (D = O = 1 in 2-D).
    const std::int64_t cg = s.C / s.groups, kg = s.K / s.groups, hw = s.D * s.H * s.W, pq = s.O() * s.P() * s.Q();
    const auto per_group = static_cast<std::int64_t>(config_.packed_floats_per_group(s));
    const Tensor& bias = s.bias ? bias_ : packed_;  // never read without BIAS
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    auto u = [](std::int64_t v) { return static_cast<cl_ulong>(v); };
    const std::int64_t chunk = ImplicitGemmConfig::images_per_launch(s);
    for (std::int64_t n0 = 0; n0 < s.N; n0 += chunk) {
        const std::int64_t images = std::min(chunk, s.N - n0);
        for (std::int64_t g = 0; g < s.groups; ++g) {
            internal::set_args(conv_, "conv_kvec", input, input_offset + u(n0 * s.C * hw + g * cg * hw),
                               i(s.C * hw), packed_.buffer(), u(g * per_group), y.buffer(),
                               internal::offset_of(y) + u(n0 * s.K * pq + g * kg * pq), i(s.K * pq), bias.buffer(),
                               internal::offset_of(bias) + u(s.bias ? g * kg : 0), i(cg), i(s.H), i(s.W), i(kg),
                               i(s.P()), i(s.Q()), i(images), i(s.R), i(s.stride_h), i(s.stride_w), i(s.pad_top),
                               i(s.pad_left), i(s.D), i(s.O()), i(s.T), i(s.stride_d), i(s.pad_front));
            internal::launch(context_->queue(), conv_, "conv_kvec", config_.global(s, images), config_.local(), chain);
        }
    }
}

}  // namespace netcl
