#include "ops/winograd/WinogradConv.hpp"

#include "netcl/Error.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {

constexpr const char* kName = "CONV2D_WINOGRAD";

}  // namespace

WinogradConv::WinogradConv(std::shared_ptr<Context> context, const WinogradConfig& config, const ConvShapes& shapes)
    : context_(std::move(context)), config_(config), shapes_(shapes) {
    const ProgramSpec spec = config_.program(shapes);
    const cl::Program program = context_->programs().get_source(spec.label, spec.source, spec.options);
    weights_kernel_ = internal::make_kernel(program, "winograd_weights");
    fused_kernel_ = internal::make_kernel(program, "winograd_fused");
    reduce_kernel_ = internal::make_kernel(program, "winograd_reduce");
    // U is allocated with the strategy, not at the first set_weights: a layer
    // that cannot hold it falls back to another plan before enqueueing anything.
    const ConvShapes& s = shapes_;
    u_ = Tensor::empty(context_, {s.groups, config_.padded_k(s), config_.padded_c(s), config_.alpha * config_.alpha});
}

void WinogradConv::set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) {
    internal::check_weights(kName, shapes_, weights, bias);
    const ConvShapes& s = shapes_;
    const std::int64_t Cg = s.C / s.groups, Kg = s.K / s.groups;
    const std::int64_t Cp = config_.padded_c(s), Kp = config_.padded_k(s);
    // u_ is [g][Kp/BK][Cp][a2][BK].
    internal::set_args(weights_kernel_, "winograd_weights", weights.buffer(), internal::offset_of(weights),
                       u_.buffer(), static_cast<int>(Cg), static_cast<int>(Cp), static_cast<int>(Kg),
                       static_cast<int>(Kp));
    // Kp is a multiple of the K block; the launch rounds it up to the work-group where the block is not
    // a multiple of 64, and the kernel skips k >= Kp.
    internal::launch(context_->queue(), weights_kernel_, "winograd_weights",
                     cl::NDRange(static_cast<std::size_t>(Kp), static_cast<std::size_t>(Cp),
                                 static_cast<std::size_t>(s.groups)),
                     cl::NDRange(config_.weights_work_group(), 1, 1), chain);
    bias_ = s.bias ? *bias : Tensor{};
    has_weights_ = true;
}

void WinogradConv::enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) {
    NETCL_REQUIRE(has_weights_, "CONV2D_WINOGRAD: enqueue before set_weights; expected weights first");
    internal::check_io(kName, shapes_, x, y);
    const ConvShapes& s = shapes_;
    const int m = config_.variant.m, alpha = config_.alpha;
    const std::int64_t P = s.P(), Q = s.Q(), Cg = s.C / s.groups, Kg = s.K / s.groups;
    const std::int64_t Cp = config_.padded_c(s), Kp = config_.padded_k(s);
    const std::int64_t tiles_h = (P + m - 1) / m, tiles_w = (Q + m - 1) / m;
    const std::int64_t splits = config_.splits(s);
    NETCL_REQUIRE(splits == 1 || (workspace.buffer() && workspace.bytes >= config_.workspace_bytes(s)),
                  "CONV2D_WINOGRAD: the workspace is missing or smaller than the " +
                      std::to_string(config_.workspace_bytes(s)) + " bytes it declared");
    // Split C: the partial outputs go to the workspace, then one reduction
    // per group adds them and the bias into y.
    const cl::Buffer& out = splits > 1 ? workspace.buffer : y.buffer();
    const cl_ulong out_offset = splits > 1 ? workspace.offset_bytes / sizeof(float) : internal::offset_of(y);
    const auto split_stride = static_cast<cl_ulong>(s.output_numel());
    // Without a bias the kernel never reads its bias argument; bind U there.
    const Tensor& bias = s.bias ? bias_ : u_;
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    const std::int64_t u_group = static_cast<std::int64_t>(alpha) * alpha * Cp * Kp;
    for (std::int64_t g = 0; g < s.groups; ++g) {
        internal::set_args(fused_kernel_, "winograd_fused", x.buffer(), internal::offset_of(x), u_.buffer(),
                           bias.buffer(), internal::offset_of(bias), out, out_offset, i(Cg), i(s.H), i(s.W), i(Kg),
                           i(P), i(Q), i(s.pad_top), i(s.pad_left), i(tiles_w), i(tiles_h * tiles_w),
                           i(config_.tiles(s)), i(s.C), i(g * Cg), i(s.K), i(g * Kg), i(Cp), i(g * u_group),
                           i(s.bias && splits == 1 ? 1 : 0), i(config_.tile_blocks(s)), i(config_.c_slice(s)),
                           split_stride, i(splits == 1 ? 1 : 0));
        internal::launch(context_->queue(), fused_kernel_, "winograd_fused", config_.global(s), config_.local(), chain);
        if (splits > 1) {
            internal::set_args(reduce_kernel_, "winograd_reduce", workspace.buffer, out_offset, i(splits), split_stride,
                               y.buffer(), internal::offset_of(y), bias.buffer(), internal::offset_of(bias),
                               i(s.bias ? 1 : 0), i(Kg), i(s.K), i(g * Kg), i(P * Q));
            internal::launch(context_->queue(), reduce_kernel_, "winograd_reduce",
                             cl::NDRange(static_cast<std::size_t>(P * Q), static_cast<std::size_t>(s.N * Kg)),
                             cl::NDRange(64, 1), chain);
        }
    }
}

}  // namespace netcl
