#include "ops/col2im/Col2imGemmConv.hpp"

#include "ops/internal/KernelLaunch.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "col2im-gemm";
}  // namespace

Col2imGemmConv::Col2imGemmConv(std::shared_ptr<Context> context, const ConvShapes& shapes,
                               const Col2imGemmConfig& config)
    : context_(std::move(context)), shapes_(shapes), config_(config) {
    const std::vector<ProgramSpec> specs = config_.programs();
    const auto program = [&](const ProgramSpec& spec) {
        return context_->programs().get_source(spec.label, spec.source, spec.options);
    };
    const cl::Program copies = program(specs[0]);
    transpose_ = internal::make_kernel(copies, "im2col_patches");
    col2im_ = internal::make_kernel(copies, "col2im");
    gemm_ = internal::make_kernel(program(specs[1]), "gemm");
    if (config_.panels) {
        pack_rows_ = internal::make_kernel(program(specs[2]), internal::kPackRowPanels);
        pack_columns_ = internal::make_kernel(program(specs.back()), internal::kPackColumnPanels);
    }
}

void Col2imGemmConv::set_weights(const Tensor& weights, const Tensor* bias, internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    internal::check_weights(kName, s, weights, bias);
    const std::int64_t taps = s.C / s.groups * s.R * s.S;
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    if (config_.weights_in_place) {
        transposed_ = weights;  // read as A_TRANSPOSED: each group's K/groups x taps block as it lies
        has_weights_ = true;
        return;
    }
    // W as an image of K channels of `taps` pixels: its patches under a 1x1
    // filter are W^T, group by group. A fresh buffer each time: a run still
    // in flight keeps reading the old one.
    Tensor transposed = Tensor::empty(context_, {s.weight_numel()});
    internal::set_args(transpose_, "im2col_patches", weights.buffer(), internal::offset_of(weights),
                       transposed.buffer(), cl_ulong{0}, 0, 0, i(taps), i(s.K), 1, i(taps), i(taps), 1, 1, 1, 1, 0, 0,
                       1, 1, i(s.groups), 16);
    internal::launch(context_->queue(), transpose_, "im2col_patches", config_.transpose_global(s),
                     cl::NDRange(4, 16, 1), chain);
    if (config_.panels) {
        transposed = internal::packed_row_panels(context_, pack_rows_, transposed, 1, taps, s.K, config_.tile.mr, chain);
    }
    transposed_ = std::move(transposed);
    has_weights_ = true;
}

void Col2imGemmConv::enqueue(const Tensor&, const Tensor&, const Workspace&, internal::EventChain&) {
    throw Error("internal: col2im-gemm computes input gradients only; it was asked to run forward");
}

void Col2imGemmConv::enqueue_backward_data(const Tensor& dy, const Tensor& dx, const Workspace& workspace,
                                           internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    NETCL_REQUIRE(has_weights_, "col2im-gemm: backward data before set_weights; expected weights first");
    internal::check_io(kName, s, dx, dy);
    NETCL_REQUIRE(workspace.buffer() && workspace.bytes >= config_.workspace_bytes() &&
                      workspace.offset_bytes % sizeof(float) == 0,
                  "col2im-gemm: the workspace is missing or smaller than the " +
                      std::to_string(config_.workspace_bytes()) + " bytes it declared");
    const std::int64_t PQ = s.P() * s.Q(), kg = s.K / s.groups, taps = s.C / s.groups * s.R * s.S;
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    auto u = [](std::size_t v) { return static_cast<cl_ulong>(v); };
    const std::size_t cols = workspace.offset_bytes / sizeof(float);
    const cl::CommandQueue& queue = context_->queue();
    const std::size_t panels = cols + config_.columns_bytes / sizeof(float);
    const int nr = config_.tile.nr();
    for (std::int64_t n = 0; n < s.N; ++n) {
        if (config_.panels) {
            // One group: A = W^T in panels of MR rows, B = dy's image n in panels of NR columns, C = the columns.
            internal::enqueue_pack_columns(queue, pack_columns_, dy, static_cast<std::size_t>(n * s.K * PQ),
                                           col2im_dy_source(s), nr, workspace.buffer, panels, chain);
            internal::set_args(gemm_, "gemm", transposed_.buffer(), internal::offset_of(transposed_), 0,
                               workspace.buffer, u(panels), 0, workspace.buffer, u(cols), i(taps * PQ),
                               transposed_.buffer(), internal::offset_of(transposed_), i(taps), i(PQ), i(s.K),
                               i(s.K), i(nr), i(PQ));
        } else {
            // Entry g: A = W_g^T (taps x K/groups), B = dy's image n, group g (K/groups x P·Q), C = the columns'
            // group-g rows.
            const std::size_t b = internal::offset_of(dy) + static_cast<std::size_t>(n * s.K * PQ);
            // In place, A's rows are W's columns: lda is W's row length, taps.
            const std::int64_t lda = config_.weights_in_place ? taps : kg;
            internal::set_args(gemm_, "gemm", transposed_.buffer(), internal::offset_of(transposed_), i(taps * kg),
                               dy.buffer(), u(b), i(kg * PQ), workspace.buffer, u(cols), i(taps * PQ), dy.buffer(),
                               internal::offset_of(dy), i(taps), i(PQ), i(kg), i(lda), i(PQ), i(PQ));
        }
        internal::launch(queue, gemm_, "gemm", config_.gemm_global(s), config_.gemm_local(), chain);
        internal::set_args(col2im_, "col2im", workspace.buffer, u(cols), dx.buffer(), internal::offset_of(dx), i(n),
                           i(s.C), i(s.H), i(s.W), i(s.P()), i(s.Q()), i(s.R), i(s.S), i(s.stride_h), i(s.stride_w),
                           i(s.pad_top), i(s.pad_left), i(s.dilation_h), i(s.dilation_w));
        internal::launch(queue, col2im_, "col2im", config_.col2im_global(s), config_.col2im_local(), chain);
    }
}

}  // namespace netcl
