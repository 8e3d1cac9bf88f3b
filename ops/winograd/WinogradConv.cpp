#include "ops/winograd/WinogradConv.hpp"

#include "netcl/Error.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "ops/winograd/WinogradMatrices.hpp"
#include "ops/winograd/WinogradSource.hpp"
#include "runtime/EmbeddedSources.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {

constexpr const char* kName = "CONV2D_WINOGRAD";

// One program per (tile, weight memory, block sizes): at most 8 builds. The
// weight transform lives in the same program so it costs no build of its own.
cl::Program build_program(Context& context, const WinogradConfig& config) {
    const WinogradVariant& v = config.variant;
    const std::string source = winograd_cl_prelude(winograd_matrices(v.m, v.r)) +
                               embedded_source("winograd_weights") + embedded_source("winograd_fused");
    const std::string label = "winograd F(" + std::to_string(v.m) + "x" + std::to_string(v.m) + "," +
                              std::to_string(v.r) + "x" + std::to_string(v.r) + ")";
    return context.programs().get_source(label, source, config.build_options());
}

}  // namespace

WinogradConv::WinogradConv(std::shared_ptr<Context> context, const WinogradConfig& config, const ConvShapes& shapes)
    : context_(std::move(context)), config_(config), shapes_(shapes) {
    const cl::Program program = build_program(*context_, config_);
    weights_kernel_ = internal::make_kernel(program, "winograd_weights");
    fused_kernel_ = internal::make_kernel(program, "winograd_fused");
}

void WinogradConv::set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) {
    internal::check_weights(kName, shapes_, weights, bias);
    const ConvShapes& s = shapes_;
    const std::int64_t Cg = s.C / s.groups, Kg = s.K / s.groups;
    const std::int64_t Cp = config_.padded_c(s), Kp = config_.padded_k(s);
    const std::int64_t a2 = config_.alpha * config_.alpha;
    if (!u_.defined()) u_ = Tensor::empty(context_, {s.groups, Kp, Cp, a2});  // [g][Kp/BK][Cp][a2][BK]
    internal::set_args(weights_kernel_, "winograd_weights", weights.buffer(), internal::offset_of(weights),
                       u_.buffer(), static_cast<int>(Cg), static_cast<int>(Cp), static_cast<int>(Kg),
                       static_cast<int>(Kp));
    // Kp is a multiple of the K block, itself a multiple of 8.
    internal::launch(context_->queue(), weights_kernel_, "winograd_weights",
                     cl::NDRange(static_cast<std::size_t>(Kp), static_cast<std::size_t>(Cp),
                                 static_cast<std::size_t>(s.groups)),
                     cl::NDRange(8, 1, 1), chain);
    bias_ = s.bias ? *bias : Tensor{};
    has_weights_ = true;
}

void WinogradConv::enqueue(const Tensor& x, const Tensor& y, const Workspace&, internal::EventChain& chain) {
    NETCL_REQUIRE(has_weights_, "CONV2D_WINOGRAD: enqueue before set_weights; expected weights first");
    internal::check_io(kName, shapes_, x, y);
    const ConvShapes& s = shapes_;
    const int m = config_.variant.m, alpha = config_.alpha;
    const std::int64_t P = s.P(), Q = s.Q(), Cg = s.C / s.groups, Kg = s.K / s.groups;
    const std::int64_t Cp = config_.padded_c(s), Kp = config_.padded_k(s);
    const std::int64_t tiles_h = (P + m - 1) / m, tiles_w = (Q + m - 1) / m;
    const std::int64_t tiles_total = s.N * tiles_h * tiles_w;
    // Without a bias the kernel never reads its bias argument; bind U there.
    const Tensor& bias = s.bias ? bias_ : u_;
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    const std::int64_t u_group = static_cast<std::int64_t>(alpha) * alpha * Cp * Kp;
    for (std::int64_t g = 0; g < s.groups; ++g) {
        internal::set_args(fused_kernel_, "winograd_fused", x.buffer(), internal::offset_of(x), u_.buffer(),
                           bias.buffer(), internal::offset_of(bias), y.buffer(), internal::offset_of(y), i(Cg), i(s.H),
                           i(s.W), i(Kg), i(P), i(Q), i(s.pad_top), i(s.pad_left), i(tiles_w), i(tiles_h * tiles_w),
                           i(tiles_total), i(s.C), i(g * Cg), i(s.K), i(g * Kg), i(Cp), i(g * u_group),
                           i(s.bias ? 1 : 0));
        internal::launch(context_->queue(), fused_kernel_, "winograd_fused", config_.global(s), config_.local(), chain);
    }
}

}  // namespace netcl
