#include "ops/im2col/Im2colGemmConv.hpp"

#include <algorithm>

#include "ops/im2col/ColumnExpansion.hpp"
#include "ops/gemm/PanelGemm.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "ops/internal/Panels.hpp"
#include "ops/internal/Widen.hpp"
#include "netcl/Error.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "im2col-gemm";
}  // namespace

Im2colGemmConv::Im2colGemmConv(std::shared_ptr<Context> context, const ConvShapes& shapes,
                               const Im2colGemmConfig& config)
    : context_(std::move(context)), shapes_(shapes), config_(config) {
    if (config_.panels) {
        const ProgramSpec panels = internal::panels_program(shapes_.dtype);
        const cl::Program program = context_->programs().get_source(panels.label, panels.source, panels.options);
        if (config_.packs_weights()) pack_weights_ = internal::make_kernel(program, internal::kPackRowPanels);
        pack_columns_ = internal::make_kernel(program, internal::kPackColumnPanels);
    } else {
        for (const ProgramSpec& spec : im2col_programs(config_.layout, /*bias=*/false)) {
            im2col_ = internal::make_kernel(context_->programs().get_source(spec.label, spec.source, spec.options),
                                            spec.kernels.front().name.c_str());
        }
    }
    const ProgramSpec gemm = config_.gemm_program();
    gemm_ = internal::make_kernel(context_->programs().get_source(gemm.label, gemm.source, gemm.options), "gemm");
    if (shapes_.dtype == DataType::FLOAT16 && !config_.panels) {
        const ProgramSpec widen = internal::widen_program();
        widen_ = internal::make_kernel(context_->programs().get_source(widen.label, widen.source, widen.options),
                                       widen.kernels.front().name.c_str());
    }
}

void Im2colGemmConv::set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) {
    internal::check_weights(kName, shapes_, weights, bias);
    const ConvShapes& s = shapes_;
    if (config_.packs_weights()) {
        weights_ = internal::packed_row_panels(context_, pack_weights_, weights, 1, s.K, s.C * s.R * s.S,
                                               config_.tile.mr, chain);
    } else {
        weights_ = s.dtype == DataType::FLOAT16 ? internal::widened_copy(context_, widen_, weights, chain) : weights;
    }
    bias_ = shapes_.bias ? *bias : Tensor{};
    has_weights_ = true;
}

void Im2colGemmConv::enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) {
    NETCL_REQUIRE(has_weights_, "im2col-gemm: enqueue before set_weights; expected weights first");
    internal::check_io(kName, shapes_, x, y);
    const Im2colLayout& layout = config_.layout;
    const ConvShapes& s = shapes_;
    const std::size_t declared = config_.workspace_bytes(s);
    NETCL_REQUIRE(layout.direct || (workspace.buffer() && workspace.bytes >= declared &&
                                    workspace.offset_bytes % sizeof(float) == 0),
                  "im2col-gemm: the workspace is missing or smaller than the " + std::to_string(declared) +
                      " bytes it declared");
    if (config_.panels) {
        internal::enqueue_panel_gemm(context_->queue(), pack_columns_, gemm_, config_.tile, s,
                                     config_.images_per_pass, weights_, s.bias ? &bias_ : nullptr, x, y, workspace,
                                     chain);
        return;
    }
    const std::int64_t P = s.P(), Q = s.Q(), PQ = P * Q, cg = s.C / s.groups, kg = s.K / s.groups;
    const std::int64_t rows = cg * s.R * s.S;  // the GEMM's inner dimension, per group
    const Tensor& bias = s.bias ? bias_ : weights_;  // never read without BIAS
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    auto u = [](std::int64_t v) { return static_cast<cl_ulong>(v); };
    const auto workspace_origin = static_cast<std::int64_t>(workspace.offset_bytes / sizeof(float));
    for (std::int64_t n0 = 0; n0 < s.N; n0 += layout.images_per_pass) {
        const std::int64_t images = std::min(layout.images_per_pass, s.N - n0);
        const cl::Buffer* columns = &x.buffer();
        std::int64_t columns_origin = static_cast<std::int64_t>(x.offset()) + n0 * s.C * s.H * s.W;
        std::int64_t column_image_stride = s.C * s.H * s.W;
        if (!layout.direct) {
            enqueue_columns(context_->queue(), im2col_, layout, s, x, workspace.buffer, u(workspace_origin), n0,
                            images, chain);
            columns = &workspace.buffer;
            columns_origin = workspace_origin;
            column_image_stride = s.C * s.R * s.S * PQ;
        }
        for (std::int64_t g = 0; g < s.groups; ++g) {
            // Group g of every image of the pass: weights rows g*Kg.. (the same for each image: batch stride 0),
            // column rows g*rows.., output channels g*Kg...
            internal::set_args(gemm_, "gemm", weights_.buffer(), internal::offset_of(weights_) + u(g * kg * rows), 0,
                               *columns, u(columns_origin + g * rows * PQ), i(column_image_stride), y.buffer(),
                               internal::offset_of(y) + u((n0 * s.K + g * kg) * PQ), i(s.K * PQ), bias.buffer(),
                               internal::offset_of(bias) + u(s.bias ? g * kg : 0), i(kg), i(PQ), i(rows), i(rows),
                               i(PQ), i(PQ));
            const std::int64_t nr = config_.tile.nr(), mr = config_.tile.mr;
            internal::launch(context_->queue(), gemm_, "gemm",
                             cl::NDRange(static_cast<std::size_t>((PQ + nr - 1) / nr),
                                         static_cast<std::size_t>((kg + mr - 1) / mr), static_cast<std::size_t>(images)),
                             cl::NDRange(config_.tile.work_group[0], config_.tile.work_group[1], 1), chain);
        }
    }
}

}  // namespace netcl
