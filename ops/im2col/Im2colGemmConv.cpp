#include "ops/im2col/Im2colGemmConv.hpp"

#include <algorithm>

#include "ops/im2col/ColumnExpansion.hpp"
#include "ops/gemm/PanelGemm.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "ops/internal/OutputStage.hpp"
#include "ops/internal/Panels.hpp"
#include "ops/internal/Widen.hpp"
#include "netcl/Error.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "im2col-gemm";
}  // namespace

Im2colGemmConfig im2col_gemm_config(const ConvShapes& s, const DeviceProfile& profile) {
    Im2colGemmConfig c;
    c.layout = im2col_layout(s, profile);
    c.tile = gemm_tile(profile, "im2col_gemm", gemm_tile(profile, "gemm", GemmTile{6, 2, 8, {8, 2}}));
    c.edge_m = s.K / s.groups < c.tile.mr;
    c.edge_n = s.P() * s.Q() < c.tile.nr();
    c.bias = s.bias;
    c.post_ops = s.post_ops;
    c.images_per_pass = c.layout.images_per_pass;
    // In panels where the profile's im2col_gemm_panels_max_pixels or _max_channels says (selector thresholds:
    // the selector ranks im2col-gemm first there, and says what was measured; a reduction short enough for
    // im2col_gemm_max_reduction keeps its rows): the same pass target, over the panels' bytes an image.
    const std::int64_t channels = s.C / s.groups;  // forward shapes only: backward data arrives as its phases
    const bool few_channels = s.R * s.S > 1 &&
                              static_cast<double>(channels) <= profile.tuned_or("im2col_gemm_panels_max_channels", 0.0) &&
                              static_cast<double>(channels * s.R * s.S) > profile.tuned_or("im2col_gemm_max_reduction", 0.0);
    c.panels = !c.layout.direct && s.groups == 1 &&
               (static_cast<double>(s.P() * s.Q()) <= profile.tuned_or("im2col_gemm_panels_max_pixels", 0.0) ||
                few_channels);
    if (c.panels) {
        c.edge_n = false;
        c.images_per_pass = internal::panel_gemm_images_per_pass(
            s, c.tile, std::min(im2col_pass_bytes(profile), im2col_workspace_limit(profile)));
    }
    // A GEMM launch writes a group of a pass's images.
    c.stream_output = internal::stream_output(
        profile, static_cast<std::size_t>(c.images_per_pass * (s.K / s.groups) * s.P() * s.Q()) * size_of(s.dtype),
        s.post_ops, s.dtype);
    return c;
}

std::size_t Im2colGemmConfig::workspace_bytes(const ConvShapes& s) const {
    return panels ? internal::panel_gemm_workspace_bytes(s, tile, images_per_pass) : layout.workspace_bytes;
}

std::size_t Im2colGemmConfig::weight_floats(const ConvShapes& s) const {
    if (panels) return internal::row_panel_floats(1, s.K, s.C * s.R * s.S, tile.mr);
    return layout.dtype == DataType::FLOAT16 ? static_cast<std::size_t>(s.weight_numel()) : 0;
}

ProgramSpec Im2colGemmConfig::gemm_program() const {
    // A the weights in float32 (a float16 layer's widened at set_weights: a
    // half A converted a lone element at each step held VGG's conv1.1 GEMM
    // at 6.0 ms against float32's 2.0 on Zen 3), C the output in the layer's
    // type; B the float32 columns, or x itself when the layer is 1x1 and the
    // input is the column matrix.
    const DataType type = layout.dtype;
    return netcl::gemm_program(tile, edge_m, edge_n, bias, 0, false, false, post_ops,
                               {DataType::FLOAT32, layout.direct ? type : DataType::FLOAT32, type},
                               {panels, panels, false, 0, false, false, stream_output});
}

std::string Im2colGemmConfig::str() const {
    if (panels) {
        return std::to_string(images_per_pass) + " image(s) per pass, columns and weights in panels, GEMM " +
               tile.str() + (stream_output ? internal::kStreamedOutputs : "");
    }
    return (layout.direct ? std::string("1x1: the input is the column matrix")
                          : std::to_string(layout.images_per_pass) + " image(s) per pass, workspace " +
                                std::to_string(layout.workspace_bytes) + " bytes" +
                                (layout.by_rows ? ", columns a row a work-item" : "")) +
           ", GEMM " + tile.str() + (stream_output ? internal::kStreamedOutputs : "");
}

Im2colGemmConv::Im2colGemmConv(std::shared_ptr<Context> context, const ConvShapes& shapes,
                               const Im2colGemmConfig& config)
    : context_(std::move(context)), shapes_(shapes), config_(config) {
    if (config_.panels) {
        const ProgramSpec panels = internal::panels_program(shapes_.dtype);
        const cl::Program program = context_->programs().get_source(panels.label, panels.source, panels.options);
        pack_weights_ = internal::make_kernel(program, internal::kPackRowPanels);
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
    if (config_.panels) {
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
