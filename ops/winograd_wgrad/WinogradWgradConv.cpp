#include "ops/winograd_wgrad/WinogradWgradConv.hpp"

#include "ops/internal/ClblastCache.hpp"
#include "ops/internal/ClblastCall.hpp"
#include "ops/internal/GradientSums.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "winograd-wgrad";
}  // namespace

WinogradWgradConv::WinogradWgradConv(std::shared_ptr<Context> context, const ConvShapes& shapes,
                                     const WinogradWgradConfig& config)
    : context_(std::move(context)), shapes_(shapes), config_(config) {
    const auto program = [&](const ProgramSpec& spec) {
        return context_->programs().get_source(spec.label, spec.source, spec.options);
    };
    const cl::Program transforms = program(config_.transforms_program());
    input_ = internal::make_kernel(transforms, "winograd_gemm_input_channels");
    dy_ = internal::make_kernel(transforms, "winograd_wgrad_dy");
    output_ = internal::make_kernel(transforms, "winograd_wgrad_output");
    bias_gradient_ = internal::make_kernel(transforms, internal::kBiasGradientKernel);
    if (config_.clblast) {
        internal::clblast_will_use(*context_);
        return;
    }
    multiply_ = internal::make_kernel(program(config_.gemm_program(false)), "gemm");
    if (config_.passes > 1) multiply_add_ = internal::make_kernel(program(config_.gemm_program(true)), "gemm");
}

void WinogradWgradConv::enqueue(const Tensor&, const Tensor&, const Workspace&, internal::EventChain&) {
    throw Error("internal: winograd-wgrad computes weight gradients only; it was asked to run forward");
}

void WinogradWgradConv::enqueue_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& dw,
                                                 const Tensor* db, float beta, const Workspace& workspace,
                                                 internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    internal::check_io(kName, s, x, dy);
    internal::check_weights(kName, s, dw, db);
    const std::size_t declared = config_.workspace_bytes(s);
    NETCL_REQUIRE(workspace.buffer() && workspace.bytes >= declared && workspace.offset_bytes % sizeof(float) == 0,
                  "winograd-wgrad: the workspace is missing or smaller than the " + std::to_string(declared) +
                      " bytes it declared");
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    auto u = [](std::int64_t v) { return static_cast<cl_ulong>(v); };
    auto z = [](std::int64_t v) { return static_cast<std::size_t>(v); };
    const std::int64_t e = config_.elements();
    // M first (it lives through every pass), then the pass's V and D. A float16 x is read by the input
    // transform itself (kernels_cl/winograd_gemm_channels.cl gathers a pixel's channels as half bits).
    const std::int64_t m_at = static_cast<std::int64_t>(workspace.offset_bytes / sizeof(float));
    const std::int64_t v_at = m_at + s.K * s.C * e, d_at = v_at + config_.tiles_per_pass * s.C * e;
    const cl::CommandQueue& queue = context_->queue();
    const std::int64_t lanes = config_.channel_lanes;
    std::int64_t tile0 = 0;
    for (std::int64_t p = 0; p < config_.passes; ++p) {
        const std::int64_t T = config_.tiles / config_.passes + (p < config_.tiles % config_.passes ? 1 : 0);
        // V[e][T][C]: a work-item a tile's `lanes` channels (consecutive work-items share the tile's rows).
        internal::set_args(input_, "winograd_gemm_input_channels", x.buffer(), internal::offset_of(x), workspace.buffer, u(v_at),
                           i(s.C), i(s.H), i(s.W), i(s.pad_top), i(s.pad_left), i(config_.tiles_w),
                           i(config_.tiles_per_image), i(tile0), i(T));
        internal::launch(queue, input_, "winograd_gemm_input_channels", cl::NDRange(z((s.C + lanes - 1) / lanes), z(T)),
                         cl::NDRange(1, 1), chain);
        internal::set_args(dy_, "winograd_wgrad_dy", dy.buffer(), internal::offset_of(dy), workspace.buffer, u(d_at),
                           i(s.K), i(s.P()), i(s.Q()), i(config_.tiles_w), i(config_.tiles_per_image), i(tile0), i(T));
        internal::launch(queue, dy_, "winograd_wgrad_dy", cl::NDRange(z((T + 7) / 8), z(s.K)), cl::NDRange(1, 1), chain);
        // M_e (K x C) (+)= D_e (K x T) V_e (T x C) for every transform element e.
        if (config_.clblast) {
            internal::enqueue_clblast(
                chain, queue,
                [&](cl_command_queue* clblast_queue, cl_event* event) {
                    return clblast::GemmStridedBatched(
                        clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo, z(s.K), z(s.C),
                        z(T), 1.0f, workspace.buffer(), z(d_at), z(T), z(s.K * T), workspace.buffer(), z(v_at), z(s.C),
                        z(T * s.C), p == 0 ? 0.0f : 1.0f, workspace.buffer(), z(m_at), z(s.C), z(s.K * s.C), z(e),
                        clblast_queue, event);
                },
                [&] {
                    return "winograd-wgrad's strided-batched SGEMM (" + std::to_string(e) + " x " +
                           std::to_string(s.K) + "x" + std::to_string(s.C) + "x" + std::to_string(T) + ", pass " +
                           std::to_string(p) + ") for " + s.str();
                });
            tile0 += T;
            continue;
        }
        cl::Kernel& gemm = p == 0 ? multiply_ : multiply_add_;
        internal::set_args(gemm, "gemm", workspace.buffer, u(d_at), i(s.K * T), workspace.buffer, u(v_at),
                           i(T * s.C), workspace.buffer, u(m_at), i(s.K * s.C), workspace.buffer, u(m_at), i(s.K),
                           i(s.C), i(T), i(T), i(s.C), i(s.C));
        const GemmTile& tile = config_.tile;
        internal::launch(queue, gemm, "gemm",
                         cl::NDRange(z((s.C + tile.nr() - 1) / tile.nr()), z((s.K + tile.mr - 1) / tile.mr), z(e)),
                         cl::NDRange(tile.work_group[0], tile.work_group[1], 1), chain);
        tile0 += T;
    }
    internal::set_args(output_, "winograd_wgrad_output", workspace.buffer, u(m_at), dw.buffer(),
                       internal::offset_of(dw), beta, i(s.C), i(s.K));
    internal::launch(queue, output_, "winograd_wgrad_output", cl::NDRange(z((s.C + 7) / 8), z(s.K)), cl::NDRange(1, 1), chain);
    if (s.bias) internal::enqueue_bias_gradient(queue, bias_gradient_, s, dy, *db, beta, chain);
}

}  // namespace netcl
