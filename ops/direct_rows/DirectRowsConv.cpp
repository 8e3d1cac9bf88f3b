#include "ops/direct_rows/DirectRowsConv.hpp"

#include <algorithm>

#include "netcl/Error.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "direct-rows";
}  // namespace

DirectRowsConv::DirectRowsConv(std::shared_ptr<Context> context, const ConvShapes& shapes,
                               const DirectRowsConfig& config)
    : context_(std::move(context)), shapes_(shapes), config_(config) {
    const ProgramSpec spec = config_.program();
    const cl::Program program = context_->programs().get_source(spec.label, spec.source, spec.options);
    conv_ = internal::make_kernel(program, "conv_rows");
    split_ = internal::make_kernel(program, "conv_rows_split");
    pack_ = internal::make_kernel(program, "conv_rows_pack");
    packed_ = Tensor::empty(context_, {static_cast<std::int64_t>(config_.packed_floats(shapes_))});
}

void DirectRowsConv::set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) {
    internal::check_weights(kName, shapes_, weights, bias);
    const ConvShapes& s = shapes_;
    const std::int64_t mr = config_.tile.mr, padded_k = (s.K + mr - 1) / mr * mr;
    internal::set_args(pack_, "conv_rows_pack", weights.buffer(), internal::offset_of(weights), packed_.buffer(),
                       static_cast<int>(s.K), static_cast<int>(s.C), static_cast<int>(s.R));
    internal::launch(context_->queue(), pack_, "conv_rows_pack",
                     cl::NDRange(static_cast<std::size_t>(padded_k), static_cast<std::size_t>(s.C * s.R * s.S)),
                     cl::NDRange(8, 1), chain);
    bias_ = s.bias ? *bias : Tensor{};
    has_weights_ = true;
}

void DirectRowsConv::enqueue(const Tensor& x, const Tensor& y, const Workspace& workspace, internal::EventChain& chain) {
    NETCL_REQUIRE(has_weights_, "direct-rows: enqueue before set_weights; expected weights first");
    internal::check_io(kName, shapes_, x, y);
    NETCL_REQUIRE(workspace.buffer() && workspace.bytes >= config_.workspace_bytes() &&
                      workspace.offset_bytes % sizeof(float) == 0,
                  "direct-rows: the workspace is missing or smaller than the " +
                      std::to_string(config_.workspace_bytes()) + " bytes it declared");
    const ConvShapes& s = shapes_;
    const std::int64_t P = s.P(), Q = s.Q(), mr = config_.tile.mr, nr = config_.tile.nr();
    const std::int64_t k_panels = (s.K + mr - 1) / mr, row_tiles = (Q + nr - 1) / nr;
    const Tensor& bias = s.bias ? bias_ : packed_;  // never read without BIAS
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    auto u = [](std::int64_t v) { return static_cast<cl_ulong>(v); };
    const auto split_origin = static_cast<std::int64_t>(workspace.offset_bytes / sizeof(float));
    for (std::int64_t n0 = 0; n0 < s.N; n0 += config_.images_per_pass) {
        const std::int64_t images = std::min(config_.images_per_pass, s.N - n0);
        internal::set_args(split_, "conv_rows_split", x.buffer(), internal::offset_of(x) + u(n0 * s.C * s.H * s.W),
                           workspace.buffer, u(split_origin), i(s.H), i(s.W), i(s.pad_top), i(s.pad_left),
                           i(config_.plane_h), i(config_.plane_w));
        internal::launch(context_->queue(), split_, "conv_rows_split",
                         cl::NDRange(static_cast<std::size_t>(config_.plane_w),
                                     static_cast<std::size_t>(config_.plane_h * s.stride_w),
                                     static_cast<std::size_t>(images * s.C)),
                         cl::NDRange(64, 1, 1), chain);
        internal::set_args(conv_, "conv_rows", workspace.buffer, u(split_origin), i(config_.plane_h),
                           i(config_.plane_w), packed_.buffer(), y.buffer(), internal::offset_of(y) + u(n0 * s.K * P * Q),
                           i(s.K * P * Q), bias.buffer(), internal::offset_of(bias), i(s.C), i(s.K), i(P), i(Q),
                           i(s.R), i(s.stride_h));
        internal::launch(context_->queue(), conv_, "conv_rows",
                         cl::NDRange(static_cast<std::size_t>(row_tiles), static_cast<std::size_t>(P),
                                     static_cast<std::size_t>(images * k_panels)),
                         cl::NDRange(config_.tile.work_group[0], config_.tile.work_group[1], 1), chain);
    }
}

}  // namespace netcl
