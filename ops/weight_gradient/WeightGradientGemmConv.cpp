#include "ops/weight_gradient/WeightGradientGemmConv.hpp"

#include <algorithm>

#include "ops/internal/GradientSums.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "wgrad-gemm";
}  // namespace

WeightGradientGemmConv::WeightGradientGemmConv(std::shared_ptr<Context> context, const ConvShapes& shapes,
                                               const WeightGradientGemmConfig& config)
    : context_(std::move(context)), shapes_(shapes), config_(config) {
    const std::vector<ProgramSpec> specs = config_.programs();
    const auto program = [&](const ProgramSpec& spec) {
        return context_->programs().get_source(spec.label, spec.source, spec.options);
    };
    patches_ = internal::make_kernel(program(specs[0]), "im2col_patches");
    gemm_ = internal::make_kernel(program(specs[1]), "gemm");
    const cl::Program sums = program(specs[2]);
    sum_partials_ = internal::make_kernel(sums, internal::kSumPartialsKernel);
    bias_gradient_ = internal::make_kernel(sums, internal::kBiasGradientKernel);
}

void WeightGradientGemmConv::enqueue(const Tensor&, const Tensor&, const Workspace&, internal::EventChain&) {
    throw Error("internal: wgrad-gemm computes weight gradients only; it was asked to run forward");
}

void WeightGradientGemmConv::enqueue_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& dw,
                                                      const Tensor* db, float beta, const Workspace& workspace,
                                                      internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    internal::check_io(kName, s, x, dy);
    internal::check_weights(kName, s, dw, db);
    NETCL_REQUIRE(workspace.buffer() && workspace.bytes >= config_.workspace_bytes &&
                      workspace.offset_bytes % sizeof(float) == 0,
                  "wgrad-gemm: the workspace is missing or smaller than the " +
                      std::to_string(config_.workspace_bytes) + " bytes it declared");
    const std::int64_t PQ = s.P() * s.Q(), kg = s.K / s.groups, length = s.C / s.groups * s.R * s.S;
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    auto u = [](std::size_t v) { return static_cast<cl_ulong>(v); };
    const std::size_t patches = workspace.offset_bytes / sizeof(float);
    const std::size_t partials = patches + config_.patches_bytes / sizeof(float);
    const auto partial_floats = static_cast<std::size_t>(s.weight_numel());
    const cl::CommandQueue& queue = context_->queue();
    const std::int64_t chunks = config_.chunks(s);
    for (std::int64_t first = 0; first < chunks; first += config_.chunks_per_pass) {
        const std::int64_t in_pass = std::min(config_.chunks_per_pass, chunks - first);
        for (std::int64_t c = 0; c < in_pass; ++c) {
            const std::int64_t chunk = first + c, n = chunk / config_.chunks_per_image;
            const std::int64_t pq0 = chunk % config_.chunks_per_image * config_.chunk_pixels;
            const std::int64_t pixels = std::min(config_.chunk_pixels, PQ - pq0);
            internal::set_args(patches_, "im2col_patches", x.buffer(), internal::offset_of(x), workspace.buffer,
                               u(patches), i(n), i(pq0), i(pixels), i(s.C), i(s.H), i(s.W), i(s.Q()), i(s.R),
                               i(s.S), i(s.stride_h), i(s.stride_w), i(s.pad_top), i(s.pad_left), i(s.dilation_h),
                               i(s.dilation_w), i(s.groups), i(kWeightGradientPatchRun));
            internal::launch(queue, patches_, "im2col_patches", config_.patches_global(s, pixels),
                             config_.patches_local(), chain);
            // Entry g: A = dy's group-g rows, columns pq0.. (lda = P*Q); B = the chunk's group-g patches; C = its
            // block of this chunk's partial gradient.
            const std::size_t a = internal::offset_of(dy) + static_cast<std::size_t>(n * s.K * PQ + pq0);
            internal::set_args(gemm_, "gemm", dy.buffer(), u(a), i(kg * PQ), workspace.buffer, u(patches),
                               i(pixels * length), workspace.buffer,
                               u(partials + static_cast<std::size_t>(c) * partial_floats), i(kg * length),
                               dy.buffer(), internal::offset_of(dy), i(kg), i(length), i(pixels), i(PQ), i(length),
                               i(length));
            internal::launch(queue, gemm_, "gemm", config_.gemm_global(s), config_.gemm_local(), chain);
        }
        // The first pass blends with what dw held (beta); later ones add to it.
        internal::enqueue_sum_partials(queue, sum_partials_, workspace.buffer, partials, in_pass, dw,
                                       first == 0 ? beta : 1.0f, chain);
    }
    if (s.bias) internal::enqueue_bias_gradient(queue, bias_gradient_, s, dy, *db, beta, chain);
}

}  // namespace netcl
