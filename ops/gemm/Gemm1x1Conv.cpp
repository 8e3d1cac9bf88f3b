#include "ops/gemm/Gemm1x1Conv.hpp"

#include "ops/gemm/PanelGemm.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "ops/internal/Panels.hpp"
#include "ops/internal/Widen.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "gemm-1x1";
}  // namespace

Gemm1x1Conv::Gemm1x1Conv(std::shared_ptr<Context> context, const ConvShapes& shapes, const Gemm1x1Config& config)
    : context_(std::move(context)), shapes_(shapes), config_(config) {
    const ProgramSpec spec = config_.program();
    kernel_ = internal::make_kernel(context_->programs().get_source(spec.label, spec.source, spec.options), "gemm");
    if (config_.pack_weights || config_.pack_x) {
        const ProgramSpec panels = internal::panels_program(shapes_.dtype);
        const cl::Program program = context_->programs().get_source(panels.label, panels.source, panels.options);
        if (config_.pack_weights) {
            pack_weights_ = internal::make_kernel(
                program, config_.weights_transposed ? internal::kPackRowPanelsTransposed : internal::kPackRowPanels);
        }
        if (config_.pack_x) pack_x_ = internal::make_kernel(program, internal::kPackColumnPanels);
    }
    if (shapes_.dtype == DataType::FLOAT16 && !config_.pack_weights) {
        const ProgramSpec widen = internal::widen_program();
        widen_ = internal::make_kernel(context_->programs().get_source(widen.label, widen.source, widen.options),
                                       widen.kernels.front().name.c_str());
    }
}

void Gemm1x1Conv::set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) {
    internal::check_weights(kName, shapes_, weights, bias);
    const ConvShapes& s = shapes_;
    if (config_.pack_weights) {
        weights_ = internal::packed_row_panels(context_, pack_weights_, weights, s.groups, s.K / s.groups,
                                               s.C / s.groups, config_.tile.mr, chain, config_.weights_transposed);
    } else {
        weights_ = s.dtype == DataType::FLOAT16 ? internal::widened_copy(context_, widen_, weights, chain) : weights;
    }
    bias_ = shapes_.bias ? *bias : Tensor{};
    has_weights_ = true;
}

void Gemm1x1Conv::enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) {
    NETCL_REQUIRE(has_weights_, "gemm-1x1: enqueue before set_weights; expected weights first");
    internal::check_io(kName, shapes_, x, y);
    const ConvShapes& s = shapes_;
    const std::int64_t hw = s.H * s.W, cg = s.C / s.groups, kg = s.K / s.groups;
    const Tensor& bias = s.bias ? bias_ : weights_;  // never read without BIAS
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    auto u = [](std::int64_t v) { return static_cast<cl_ulong>(v); };
    if (config_.pack_x) {
        internal::enqueue_panel_gemm(context_->queue(), pack_x_, kernel_, config_.tile, s, config_.images_per_pass,
                                     weights_, s.bias ? &bias_ : nullptr, x, y, workspace, chain,
                                     config_.reads_weights_transposed());
        return;
    }
    for (std::int64_t g = 0; g < s.groups; ++g) {
        // Group g: weights rows g*Kg.. (or its block of panels), input channels g*Cg.., output channels g*Kg...
        const std::int64_t weights_at =
            config_.pack_weights ? static_cast<std::int64_t>(config_.weight_floats(s)) / s.groups * g : g * kg * cg;
        internal::set_args(kernel_, "gemm", weights_.buffer(), internal::offset_of(weights_) + u(weights_at), 0,
                           x.buffer(), internal::offset_of(x) + u(g * cg * hw), i(s.C * hw), y.buffer(),
                           internal::offset_of(y) + u(g * kg * hw), i(s.K * hw), bias.buffer(),
                           internal::offset_of(bias) + u(s.bias ? g * kg : 0), i(kg),
                           i(config_.columns(s)), i(cg), i(config_.reads_weights_transposed() ? kg : cg), i(hw), i(hw));
        internal::launch(context_->queue(), kernel_, "gemm", config_.global(s), config_.local(), chain);
    }
}

}  // namespace netcl
