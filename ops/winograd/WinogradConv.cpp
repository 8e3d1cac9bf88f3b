#include "ops/winograd/WinogradConv.hpp"

#include "ops/StrategyLimits.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "ops/winograd/WinogradLimits.hpp"
#include "ops/winograd/WinogradMatrices.hpp"
#include "ops/winograd/WinogradSource.hpp"
#include "runtime/EmbeddedSources.hpp"
#include "runtime/Error.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {

constexpr const char* kName = "CONV2D_WINOGRAD";

// One program per (tile, weight memory, block sizes): at most 8 builds. The
// weight transform lives in the same program so it costs no build of its own.
cl::Program build_program(Context& context, const Variant& variant) {
    const auto blocking = winograd_blocking(variant);
    const std::string source = winograd_cl_prelude(winograd_matrices(variant.winograd_tile, 3)) +
                               embedded_source("winograd_weights") + embedded_source("winograd_fused");
    std::string options = "-DBK=" + std::to_string(blocking.block_k) + " -DBT=" + std::to_string(blocking.block_tiles) +
                          " -DBC=" + std::to_string(blocking.block_c);
    if (variant.constant_weights) options += " -DU_CONSTANT";
    const std::string label = "winograd F(" + std::to_string(variant.winograd_tile) + "x" +
                              std::to_string(variant.winograd_tile) + ",3x3)";
    return context.programs().get_source(label, source, options);
}

}  // namespace

WinogradConv::WinogradConv(std::shared_ptr<Context> context, const Variant& variant, const ConvShapes& shapes)
    : context_(std::move(context)), variant_(variant), shapes_(shapes) {
    NETCL_REQUIRE(context_ != nullptr, "CONV2D_WINOGRAD needs a Context; got a null one");
    shapes_.validate();
    if (const auto reason = why_not(Kernel::CONV2D_WINOGRAD, variant_, shapes_, context_->profile())) {
        throw Error(std::string(kName) + " " + variant_.str() + " cannot run " + shapes_.str() + ": " + *reason);
    }
    const cl::Program program = build_program(*context_, variant_);
    weights_kernel_ = internal::make_kernel(program, "winograd_weights");
    fused_kernel_ = internal::make_kernel(program, "winograd_fused");
}

std::size_t WinogradConv::workspace_bytes() const { return winograd_workspace_bytes(variant_, shapes_); }

void WinogradConv::set_weights(const Tensor& weights, const Tensor* bias) {
    internal::check_weights(kName, shapes_, weights, bias);
    const ConvShapes& s = shapes_;
    const std::int64_t Cg = s.C / s.groups, Kg = s.K / s.groups;
    const std::int64_t Cp = winograd_padded_c(variant_, s), Kp = winograd_padded_k(variant_, s);
    const std::int64_t a2 = winograd_alpha(variant_) * winograd_alpha(variant_);
    if (!u_.defined()) u_ = Tensor::empty(context_, {s.groups, Kp, Cp, a2});  // [g][Kp/BK][Cp][a2][BK]
    internal::set_args(weights_kernel_, "winograd_weights", weights.buffer(), u_.buffer(), static_cast<int>(Cg),
                       static_cast<int>(Cp), static_cast<int>(Kg), static_cast<int>(Kp));
    NETCL_CL_CHECK(context_->queue().enqueueNDRangeKernel(
                       weights_kernel_, cl::NullRange,
                       cl::NDRange(static_cast<std::size_t>(Kp), static_cast<std::size_t>(Cp),
                                   static_cast<std::size_t>(s.groups))),
                   "enqueueing kernel winograd_weights");
    bias_ = s.bias ? *bias : Tensor{};
    has_weights_ = true;
}

void WinogradConv::enqueue(const Tensor& x, Tensor& y, std::vector<cl::Event>& events) {
    NETCL_REQUIRE(has_weights_, "CONV2D_WINOGRAD: enqueue before set_weights; expected weights first");
    internal::check_io(kName, shapes_, x, y);
    const ConvShapes& s = shapes_;
    const auto blocking = winograd_blocking(variant_);
    const int m = variant_.winograd_tile, alpha = winograd_alpha(variant_);
    const std::int64_t P = s.P(), Q = s.Q(), Cg = s.C / s.groups, Kg = s.K / s.groups;
    const std::int64_t Cp = winograd_padded_c(variant_, s), Kp = winograd_padded_k(variant_, s);
    const std::int64_t tiles_h = (P + m - 1) / m, tiles_w = (Q + m - 1) / m;
    const std::int64_t tiles_total = s.N * tiles_h * tiles_w;
    const std::int64_t tile_blocks = (tiles_total + blocking.block_tiles - 1) / blocking.block_tiles;
    const std::size_t kv = static_cast<std::size_t>(blocking.block_k / 8);
    const cl::NDRange local(kv, static_cast<std::size_t>(alpha * alpha), 1);
    const cl::NDRange global(kv * static_cast<std::size_t>(Kp / blocking.block_k), static_cast<std::size_t>(alpha * alpha),
                             static_cast<std::size_t>(tile_blocks));
    // Without a bias the kernel never reads its bias argument; bind U there.
    const cl::Buffer& bias = s.bias ? bias_.buffer() : u_.buffer();
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    const std::int64_t u_group = static_cast<std::int64_t>(alpha) * alpha * Cp * Kp;
    for (std::int64_t g = 0; g < s.groups; ++g) {
        internal::set_args(fused_kernel_, "winograd_fused", x.buffer(), u_.buffer(), bias, y.buffer(), i(Cg), i(s.H),
                           i(s.W), i(Kg), i(P), i(Q), i(s.pad_h), i(s.pad_w), i(tiles_w), i(tiles_h * tiles_w),
                           i(tiles_total), i(s.C), i(g * Cg), i(s.K), i(g * Kg), i(Cp), i(g * u_group),
                           i(s.bias ? 1 : 0));
        cl::Event event;
        NETCL_CL_CHECK(context_->queue().enqueueNDRangeKernel(fused_kernel_, cl::NullRange, global, local, nullptr, &event),
                       "enqueueing kernel winograd_fused for " + s.str());
        events.push_back(event);
    }
}

std::unique_ptr<ConvStrategy> make_winograd_strategy(std::shared_ptr<Context> context, const Variant& variant,
                                                     const ConvShapes& shapes) {
    return std::make_unique<WinogradConv>(std::move(context), variant, shapes);
}

}  // namespace netcl
