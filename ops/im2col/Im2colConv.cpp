#include "ops/im2col/Im2colConv.hpp"

#include <algorithm>

#include "ops/im2col/ColumnExpansion.hpp"
#include "ops/internal/ClblastCache.hpp"
#include "ops/internal/ClblastCall.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "ops/internal/Widen.hpp"
#include "netcl/Error.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "IM2COL";
}  // namespace

Im2colConv::Im2colConv(std::shared_ptr<Context> context, const ConvShapes& shapes, const Im2colLayout& layout)
    : context_(std::move(context)), shapes_(shapes), layout_(layout) {
    internal::clblast_will_use(*context_);
    for (const ProgramSpec& spec : im2col_programs(layout_, shapes_.bias, shapes_.post_ops)) {
        const cl::Program program = context_->programs().get_source(spec.label, spec.source, spec.options);
        (spec.label == "im2col" ? im2col_ : output_stage_) = internal::make_kernel(program, spec.kernels.front().name.c_str());
    }
    if (shapes_.dtype == DataType::FLOAT16) {
        const ProgramSpec widen = internal::widen_program();
        widen_ = internal::make_kernel(context_->programs().get_source(widen.label, widen.source, widen.options),
                                       widen.kernels.front().name.c_str());
    }
}

void Im2colConv::set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) {
    internal::check_weights(kName, shapes_, weights, bias);
    // float16: CLBlast's SGEMM reads a float32 copy, made once here.
    weights_ = shapes_.dtype == DataType::FLOAT16 ? internal::widened_copy(context_, widen_, weights, chain) : weights;
    bias_ = shapes_.bias ? *bias : Tensor{};
    has_weights_ = true;
}

void Im2colConv::enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) {
    NETCL_REQUIRE(has_weights_, "IM2COL: enqueue before set_weights; expected weights first");
    internal::check_io(kName, shapes_, x, y);
    NETCL_REQUIRE(layout_.workspace_bytes == 0 || (workspace.buffer() && workspace.bytes >= layout_.workspace_bytes &&
                                     workspace.offset_bytes % sizeof(float) == 0),
                  "IM2COL: the workspace is missing or smaller than the " + std::to_string(layout_.workspace_bytes) +
                      " bytes it declared");
    const ConvShapes& s = shapes_;
    const auto P = s.P(), Q = s.Q(), PQ = P * Q;
    const auto Cg = s.C / s.groups, Kg = s.K / s.groups;
    const auto rows_per_group = static_cast<std::size_t>(Cg * s.R * s.S);  // GEMM inner dimension
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    const std::size_t workspace_origin = workspace.offset_bytes / sizeof(float);
    // float16: the GEMM writes a pass's output in float32 after the columns, and the output stage stores it.
    const bool staged = layout_.float_output_bytes > 0;
    const std::size_t staged_origin =
        workspace_origin + (layout_.workspace_bytes - layout_.float_output_bytes) / sizeof(float);
    // The residual sum post-op: y's contents on entry added by the GEMM itself (by the output stage if staged).
    const float beta = s.post_ops.sum && !staged ? 1.0f : 0.0f;
    const Tensor& bias = s.bias ? bias_ : weights_;  // never read without a bias
    const auto output_stage = [&](const cl::Buffer* from, std::size_t from_offset, std::size_t y_offset,
                                  std::int64_t images) {
        if (from) {
            internal::set_args(output_stage_, "output_stage_from_float", *from, static_cast<cl_ulong>(from_offset),
                               y.buffer(), static_cast<cl_ulong>(y_offset), bias.buffer(), internal::offset_of(bias),
                               i(s.bias ? 1 : 0), i(s.K), i(PQ));
        } else {
            internal::set_args(output_stage_, "output_stage", y.buffer(), static_cast<cl_ulong>(y_offset),
                               bias.buffer(), internal::offset_of(bias), i(s.bias ? 1 : 0), i(s.K), i(PQ));
        }
        internal::launch(context_->queue(), output_stage_, from ? "output_stage_from_float" : "output_stage",
                         cl::NDRange(static_cast<std::size_t>(PQ), static_cast<std::size_t>(images * s.K)),
                         cl::NDRange(64, 1), chain);
    };

    for (std::int64_t n0 = 0; n0 < s.N; n0 += layout_.images_per_pass) {
        const std::int64_t images = std::min(layout_.images_per_pass, s.N - n0);
        const cl::Buffer* columns = &x.buffer();
        std::size_t columns_origin = x.offset() + static_cast<std::size_t>(n0 * s.C * s.H * s.W);  // floats
        if (!layout_.direct) {
            enqueue_columns(context_->queue(), im2col_, layout_, s, x, workspace.buffer,
                            static_cast<cl_ulong>(workspace_origin), n0, images, chain);
            columns = &workspace.buffer;
            columns_origin = workspace_origin;
        }
        // Per group, one strided-batched GEMM over the pass's images: image
        // b's group-g columns start g·(C/g·R·S) rows into its block, its
        // outputs g·K/g rows into y's; the weights are the same for every
        // image (stride 0). Not GemmBatched: CLBlast uploads its per-batch
        // offset arrays with a blocking write and clFinish each (5 per call,
        // counted), which a framework's forward must not do.
        for (std::int64_t g = 0; g < s.groups; ++g) {
            const std::size_t a_offset = weights_.offset() + static_cast<std::size_t>(g * Kg) * rows_per_group;
            const std::size_t b_offset = columns_origin + static_cast<std::size_t>(g) * rows_per_group * PQ;
            const std::size_t c_offset = staged ? staged_origin + static_cast<std::size_t>(g * Kg) * PQ
                                                : y.offset() + (static_cast<std::size_t>(n0) * s.K +
                                                                static_cast<std::size_t>(g * Kg)) * PQ;
            const cl::Buffer& c_buffer = staged ? workspace.buffer : y.buffer();
            internal::enqueue_clblast(
                chain, context_->queue(),
                [&](cl_command_queue* queue, cl_event* event) {
                    return clblast::GemmStridedBatched(
                        clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo,
                        static_cast<std::size_t>(Kg), static_cast<std::size_t>(PQ), rows_per_group, 1.0f,
                        weights_.buffer()(), a_offset, rows_per_group, 0, (*columns)(), b_offset,
                        static_cast<std::size_t>(PQ), static_cast<std::size_t>(s.groups) * rows_per_group * PQ, beta,
                        c_buffer(), c_offset, static_cast<std::size_t>(PQ), static_cast<std::size_t>(s.K * PQ),
                        static_cast<std::size_t>(images), queue, event);
                },
                [&] {
                    return "IM2COL's strided-batched SGEMM (" + std::to_string(images) + " x " + std::to_string(Kg) +
                           "x" + std::to_string(PQ) + "x" + std::to_string(rows_per_group) + ", group " +
                           std::to_string(g) + ") for " + s.str();
                });
        }
        if (staged) {
            output_stage(&workspace.buffer, staged_origin,
                         internal::offset_of(y) + static_cast<std::size_t>(n0 * s.K * PQ), images);
        }
    }
    if (!staged && needs_output_stage_pass(s.bias, s.post_ops)) output_stage(nullptr, 0, internal::offset_of(y), s.N);
}

}  // namespace netcl
