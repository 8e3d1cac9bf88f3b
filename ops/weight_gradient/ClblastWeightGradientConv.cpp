#include "ops/weight_gradient/ClblastWeightGradientConv.hpp"

#include <algorithm>

#include "netcl/Error.hpp"
#include "ops/im2col/ColumnExpansion.hpp"
#include "ops/internal/ClblastCache.hpp"
#include "ops/internal/ClblastStatus.hpp"
#include "ops/internal/GradientSums.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "ops/internal/Storage.hpp"
#include "runtime/EmbeddedSources.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "wgrad-clblast";
constexpr const char* kGradientSums = "gradient_sums";
}  // namespace

std::vector<ProgramSpec> clblast_weight_gradient_programs(const ConvShapes& s, const Im2colLayout& layout) {
    std::vector<ProgramSpec> list = im2col_programs(layout, /*bias=*/false);
    if (s.bias) {
        list.push_back({kGradientSums, internal::storage_source() + embedded_source("gradient_sums"),
                        internal::storage_options(s.dtype), {internal::bias_gradient_kernel()}});
    }
    return list;
}

ClblastWeightGradientConv::ClblastWeightGradientConv(std::shared_ptr<Context> context, const ConvShapes& shapes,
                                                     const Im2colLayout& layout)
    : context_(std::move(context)), shapes_(shapes), layout_(layout) {
    internal::clblast_will_use(*context_);
    for (const ProgramSpec& spec : clblast_weight_gradient_programs(shapes_, layout_)) {
        const cl::Program program = context_->programs().get_source(spec.label, spec.source, spec.options);
        (spec.label == kGradientSums ? bias_gradient_ : im2col_) =
            internal::make_kernel(program, spec.kernels.front().name.c_str());
    }
}

void ClblastWeightGradientConv::enqueue(const Tensor&, const Tensor&, const Workspace&, internal::EventChain&) {
    throw Error("internal: wgrad-clblast computes weight gradients only; it was asked to run forward");
}

void ClblastWeightGradientConv::enqueue_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& dw,
                                                         const Tensor* db, float beta, const Workspace& workspace,
                                                         internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    internal::check_io(kName, s, x, dy);
    internal::check_weights(kName, s, dw, db);
    NETCL_REQUIRE(layout_.direct || (workspace.buffer() && workspace.bytes >= layout_.workspace_bytes &&
                                     workspace.offset_bytes % sizeof(float) == 0),
                  "wgrad-clblast: the workspace is missing or smaller than the " +
                      std::to_string(layout_.workspace_bytes) + " bytes it declared");
    const auto PQ = static_cast<std::size_t>(s.P() * s.Q());
    const auto kg = static_cast<std::size_t>(s.K / s.groups);
    const auto rows_per_group = static_cast<std::size_t>(s.C / s.groups * s.R * s.S);  // dW_g's columns
    const auto image_columns = static_cast<std::size_t>(s.groups) * rows_per_group * PQ;  // C·R·S x P·Q
    const std::size_t workspace_origin = workspace.offset_bytes / sizeof(float);
    cl_command_queue queue = context_->queue()();

    for (std::int64_t n0 = 0; n0 < s.N; n0 += layout_.images_per_pass) {
        const std::int64_t images = std::min(layout_.images_per_pass, s.N - n0);
        if (!layout_.direct) {
            enqueue_columns(context_->queue(), im2col_, layout_, s, x, workspace.buffer,
                            static_cast<cl_ulong>(workspace_origin), n0, images, chain);
        }
        for (std::int64_t b = 0; b < images; ++b) {
            const std::int64_t n = n0 + b;
            const cl::Buffer& columns = layout_.direct ? x.buffer() : workspace.buffer;
            // Direct: x's image n is its C x H·W column matrix (H·W = P·Q).
            const std::size_t b_offset = layout_.direct ? x.offset() + static_cast<std::size_t>(n) * image_columns
                                                        : workspace_origin + static_cast<std::size_t>(b) * image_columns;
            const std::size_t a_offset = dy.offset() + static_cast<std::size_t>(n * s.K) * PQ;
            const float image_beta = n == 0 ? beta : 1.0f;
            // One strided-batched GEMM over the groups (CLBlast takes no wait
            // list: the chain orders it after what is pending).
            chain.library_call(context_->queue(), [&] {
                cl_event event = nullptr;
                internal::check_clblast(
                    clblast::GemmStridedBatched(
                        clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kYes, kg,
                        rows_per_group, PQ, 1.0f, dy.buffer()(), a_offset, PQ, kg * PQ, columns(), b_offset, PQ,
                        rows_per_group * PQ, image_beta, dw.buffer()(), dw.offset(), rows_per_group,
                        kg * rows_per_group, static_cast<std::size_t>(s.groups), &queue, &event),
                    "wgrad-clblast's strided-batched SGEMM (" + std::to_string(s.groups) + " x " +
                        std::to_string(kg) + "x" + std::to_string(rows_per_group) + "x" + std::to_string(PQ) +
                        ", image " + std::to_string(n) + ") for " + s.str());
                return cl::Event(event);  // takes over CLBlast's reference
            });
        }
    }
    if (s.bias) internal::enqueue_bias_gradient(context_->queue(), bias_gradient_, s, dy, *db, beta, chain);
}

}  // namespace netcl
