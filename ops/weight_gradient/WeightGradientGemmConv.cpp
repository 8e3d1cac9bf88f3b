#include "ops/weight_gradient/WeightGradientGemmConv.hpp"

#include <algorithm>

#include "ops/internal/GradientSums.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "ops/internal/Widen.hpp"
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
    // Whole images a GEMM lay their patches side by side and read A where each image lies: one group, A
    // neither copied nor widened (weight_gradient_gemm_config folds no other).
    NETCL_REQUIRE(config_.images_per_launch == 1 || config_.dot ||
                      (shapes_.groups == 1 && !config_.copies_columns() && !config_.widens_a),
                  "wgrad-gemm: whole images a GEMM need one group and A read in place");
    if (config_.dot) {  // gemm_dot, the sums, then the columns' copy (WeightGradientGemmConfig::programs)
        gemm_dot_ = internal::make_kernel(program(specs[0]), "gemm_dot");
        const cl::Program sums = program(specs[1]);
        blend_ = internal::make_kernel(sums, internal::kBlendWeightGradientKernel);
        bias_gradient_ = internal::make_kernel(sums, internal::kBiasGradientKernel);
        if (config_.copies_columns()) columns_ = internal::make_kernel(program(specs[2]), config_.columns_kernel());
        return;
    }
    const cl::Program copies = program(specs[0]);
    patches_ = internal::make_kernel(copies, config_.patches_kernel());
    if (config_.copies_columns()) columns_ = internal::make_kernel(copies, config_.columns_kernel());
    gemm_ = internal::make_kernel(program(specs[1]), "gemm");
    gemm_sum_ = internal::make_kernel(program(specs[2]), "gemm");
    const cl::Program sums = program(specs[3]);
    blend_ = internal::make_kernel(sums, internal::kBlendWeightGradientKernel);
    blend_transposed_ = internal::make_kernel(sums, internal::kBlendTransposedKernel);
    bias_gradient_ = internal::make_kernel(sums, internal::kBiasGradientKernel);
    if (config_.widens_a) widen_ = internal::make_kernel(program(specs[4]), "widen_to_float");
}

void WeightGradientGemmConv::enqueue(const Tensor&, const Tensor&, const Workspace&, internal::EventChain&) {
    throw Error("internal: wgrad-gemm computes weight gradients only; it was asked to run forward");
}

void WeightGradientGemmConv::enqueue_columns(const Tensor& x, const Workspace& workspace, std::size_t at,
                                             std::int64_t n, std::int64_t pq0, std::int64_t pixels,
                                             internal::EventChain& chain) {
    // The chunk's output rows p0.. as an image whose top padding is p0 rows less: forward's column matrix of
    // its `rows` rows, or x's stride phases from row p0's on (WeightGradientGemmConfig::columns_copy).
    const ConvShapes& s = shapes_;
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    const std::int64_t p0 = pq0 / s.Q(), rows = pixels / s.Q();
    const WeightGradientGemmConfig::ColumnsCopy copy = config_.columns_copy(s, rows);
    internal::set_args(columns_, config_.columns_kernel(), x.buffer(), internal::offset_of(x), workspace.buffer,
                       static_cast<cl_ulong>(at), i(n), i(s.C), i(s.H), i(s.W), i(copy.rows), i(copy.width),
                       i(copy.taps_r), i(copy.taps_s), i(s.stride_h), i(s.stride_w), i(s.pad_top - p0 * s.stride_h),
                       i(s.pad_left), i(copy.dilation_h), i(copy.dilation_w));
    internal::launch(context_->queue(), columns_, config_.columns_kernel(), config_.columns_global(s, rows),
                     config_.columns_local(), chain);
}

void WeightGradientGemmConv::enqueue_dot(const Tensor& x, const Tensor& dy, const Tensor& dw, float beta,
                                         bool writes_into_dw, const Workspace& workspace,
                                         internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    const std::int64_t PQ = s.P() * s.Q(), kg = s.K / s.groups, taps = s.C / s.groups * s.R * s.S;
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    auto l = [](std::int64_t v) { return static_cast<cl_long>(v); };
    auto u = [](std::size_t v) { return static_cast<cl_ulong>(v); };
    const std::size_t columns = workspace.offset_bytes / sizeof(float);
    const std::size_t sum = columns + config_.columns_bytes / sizeof(float);
    for (std::int64_t launch = 0; launch < config_.chunks(s); ++launch) {
        const auto [n, pq0, pixels, images] = config_.launch(s, launch);
        if (config_.copies_columns()) enqueue_columns(x, workspace, columns, n, pq0, pixels, chain);
        // Entry g: A = dy's group-g planes, D = the chunk's group-g columns (x's planes in place), C = group
        // g's block of the sum (or of dw).
        const cl::Buffer& d_buffer = config_.copies_columns() ? workspace.buffer : x.buffer();
        const std::size_t d = config_.copies_columns() ? columns : internal::offset_of(x) + u(n * s.C * PQ + pq0);
        const std::int64_t ldd = config_.copies_columns() ? pixels : PQ;
        const cl::Buffer& c_buffer = writes_into_dw ? dw.buffer() : workspace.buffer;
        const std::size_t c = writes_into_dw ? internal::offset_of(dw) : sum;
        const int accumulate = launch > 0 || (writes_into_dw && beta == 1.0f) ? 1 : 0;
        const std::size_t a = internal::offset_of(dy) + u(n * s.K * PQ + pq0);
        if (config_.columns_from_phases) {
            // D_PHASES: the reduction runs over the image's output rows, Q pixels each (dy's next row Q on, the
            // phases' phase_width on), D's rows the taps' offsets in the phases (group g's planes d_batch on).
            const std::int64_t width = config_.phase_width;
            internal::set_args(gemm_dot_, "gemm_dot", dy.buffer(), a, i(PQ), l(kg * PQ), l(s.Q()), d_buffer, u(d),
                               i(width), l(s.C / s.groups * s.stride_h * s.stride_w * config_.phase_rows * width),
                               l(width), c_buffer, u(c), i(taps), l(kg * taps), i(kg), i(taps), i(s.Q()), i(s.P()),
                               accumulate, i(s.R), i(s.S), i(s.stride_h), i(s.stride_w), i(s.dilation_h),
                               i(s.dilation_w), i(config_.phase_rows), i(width));
        } else {
            internal::set_args(gemm_dot_, "gemm_dot", dy.buffer(), a, i(PQ), l(kg * PQ), l(s.K * PQ), d_buffer,
                               u(d), i(ldd), l(taps * ldd), l(s.C * PQ), c_buffer, u(c), i(taps), l(kg * taps),
                               i(kg), i(taps), i(pixels), i(images), accumulate);
        }
        internal::launch(context_->queue(), gemm_dot_, "gemm_dot", config_.gemm_global(s), config_.gemm_local(),
                         chain);
    }
    if (!writes_into_dw) internal::enqueue_blend_weight_gradient(context_->queue(), blend_, workspace.buffer, sum, dw,
                                                                 beta, chain);
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
    const cl::CommandQueue& queue = context_->queue();
    const bool writes_into_dw = config_.writes_dw && (beta == 0.0f || beta == 1.0f);
    if (config_.dot) {
        enqueue_dot(x, dy, dw, beta, writes_into_dw, workspace, chain);
        if (s.bias) internal::enqueue_bias_gradient(queue, bias_gradient_, s, dy, *db, beta, chain);
        return;
    }
    const std::int64_t PQ = s.P() * s.Q(), kg = s.K / s.groups;
    const std::int64_t rows_a = config_.gemm_rows(s), columns = config_.gemm_columns(s);
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    auto u = [](std::size_t v) { return static_cast<cl_ulong>(v); };
    const std::size_t patches = workspace.offset_bytes / sizeof(float);
    const std::size_t columns_at = patches + config_.patches_bytes / sizeof(float);
    const std::size_t widened_at = columns_at + config_.columns_bytes / sizeof(float);
    const std::size_t sum = widened_at + config_.widened_a_bytes / sizeof(float);
    const bool copies_columns = config_.copies_columns();
    for (std::int64_t chunk = 0; chunk < config_.chunks(s); ++chunk) {
        const auto [n, pq0, pixels, images] = config_.launch(s, chunk);
        // Each image's patches after the last's (images > 1: whole images, one group).
        for (std::int64_t image = n; image < n + images; ++image) {
            const std::size_t at = patches + static_cast<std::size_t>((image - n) * pixels * columns);
            if (config_.transposes_planes) {
                // The planes of dy (with columns: its patches under a 1x1 filter) or of x (a 1x1 stride-1
                // unpadded layer) transposed, K/groups or C/groups a pixel.
                const Tensor& planes = config_.columns ? dy : x;
                internal::set_args(patches_, "transpose_planes", planes.buffer(), internal::offset_of(planes),
                                   workspace.buffer, u(at), i(image), i(pq0), i(pixels),
                                   i(config_.columns ? s.K : s.C), i(PQ), i(s.groups));
            } else if (config_.columns) {
                // dy's patches under a 1x1 stride-1 filter: dy transposed, K/groups a pixel.
                internal::set_args(patches_, "im2col_patches", dy.buffer(), internal::offset_of(dy),
                                   workspace.buffer, u(at), i(image), i(pq0), i(pixels), i(s.K), i(s.P()), i(s.Q()),
                                   i(s.Q()), 1, 1, 1, 1, 0, 0, 1, 1, i(s.groups), i(kWeightGradientPatchRun));
            } else {
                internal::set_args(patches_, "im2col_patches", x.buffer(), internal::offset_of(x), workspace.buffer,
                                   u(at), i(image), i(pq0), i(pixels), i(s.C), i(s.H), i(s.W), i(s.Q()), i(s.R),
                                   i(s.S), i(s.stride_h), i(s.stride_w), i(s.pad_top), i(s.pad_left),
                                   i(s.dilation_h), i(s.dilation_w), i(s.groups), i(kWeightGradientPatchRun));
            }
            internal::launch(queue, patches_, config_.patches_kernel(), config_.patches_global(s, pixels),
                             config_.patches_local(), chain);
        }
        if (copies_columns) enqueue_columns(x, workspace, columns_at, n, pq0, pixels, chain);
        // Entry g: A = dy's group-g rows (x's columns with columns: in place, or the copy), the chunk's
        // pixels; B = the chunk's group-g patches; C = group g's block of the sum.
        const Tensor& a_tensor = config_.columns ? x : dy;
        const auto a_first = static_cast<std::size_t>(n * s.groups * rows_a * PQ + pq0);
        if (config_.widens_a) {
            internal::enqueue_widen_rows(queue, widen_, a_tensor, a_first, static_cast<std::size_t>(s.groups * rows_a),
                                         static_cast<std::size_t>(pixels), static_cast<std::size_t>(PQ),
                                         workspace.buffer, widened_at, chain);
        }
        const bool a_in_workspace = copies_columns || config_.widens_a;
        const cl::Buffer& a_buffer = a_in_workspace ? workspace.buffer : a_tensor.buffer();
        const std::size_t a = copies_columns        ? columns_at
                              : config_.widens_a    ? widened_at
                                                    : internal::offset_of(a_tensor) + a_first;
        const std::int64_t lda = a_in_workspace ? pixels : PQ;
        // C: the float32 sum (the first chunk writing, the later adding), or dw itself (writes_into_dw: the
        // one chunk storing at beta 0, adding to dw's contents at beta 1).
        cl::Kernel& gemm = chunk == 0 && !(writes_into_dw && beta == 1.0f) ? gemm_ : gemm_sum_;
        const cl::Buffer& c_buffer = writes_into_dw ? dw.buffer() : workspace.buffer;
        const std::size_t c = writes_into_dw ? internal::offset_of(dw) : sum;
        if (config_.columns_from_phases) {
            // A_PHASES: the reduction runs over the chunk's output rows, Q pixels each, A's rows the taps' offsets
            // in x's phases (group g's planes bsA on), B's rows running on across the output rows.
            const std::int64_t width = config_.phase_width;
            internal::set_args(gemm, "gemm", a_buffer, u(a),
                               i(s.C / s.groups * s.stride_h * s.stride_w * config_.phase_rows * width),
                               workspace.buffer, u(patches), i(pixels * columns), c_buffer, u(c),
                               i(rows_a * columns), dy.buffer(), internal::offset_of(dy), i(rows_a), i(columns),
                               i(s.Q()), i(width), i(columns), i(columns), i(pixels / s.Q()),
                               static_cast<cl_long>(width), i(s.R), i(s.S), i(s.stride_h), i(s.stride_w),
                               i(s.dilation_h), i(s.dilation_w), i(config_.phase_rows), i(width));
        } else if (config_.images_per_launch > 1) {
            // A_IMAGES: the reduction runs over the launch's images, A's next one an image of its tensor on.
            internal::set_args(gemm, "gemm", a_buffer, u(a), i(rows_a * lda), workspace.buffer, u(patches),
                               i(pixels * columns), c_buffer, u(c), i(rows_a * columns), dy.buffer(),
                               internal::offset_of(dy), i(rows_a), i(columns), i(pixels), i(lda), i(columns),
                               i(columns), i(images), static_cast<cl_long>(s.groups * rows_a * PQ));
        } else {
            internal::set_args(gemm, "gemm", a_buffer, u(a), i(rows_a * lda), workspace.buffer, u(patches),
                               i(pixels * columns), c_buffer, u(c), i(rows_a * columns), dy.buffer(),
                               internal::offset_of(dy), i(rows_a), i(columns), i(pixels), i(lda), i(columns),
                               i(columns));
        }
        internal::launch(queue, gemm, "gemm", config_.gemm_global(s), config_.gemm_local(), chain);
    }
    if (writes_into_dw) {
        // The GEMM's output stage did beta's part.
    } else if (config_.columns) {
        internal::enqueue_blend_transposed(queue, blend_transposed_, workspace.buffer, sum, dw, beta, s.groups, kg,
                                           rows_a, chain);
    } else {
        internal::enqueue_blend_weight_gradient(queue, blend_, workspace.buffer, sum, dw, beta, chain);
    }
    if (s.bias) internal::enqueue_bias_gradient(queue, bias_gradient_, s, dy, *db, beta, chain);
}

}  // namespace netcl
