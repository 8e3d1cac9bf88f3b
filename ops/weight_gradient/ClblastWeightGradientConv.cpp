#include "ops/weight_gradient/ClblastWeightGradientConv.hpp"

#include <algorithm>

#include "netcl/Error.hpp"
#include "ops/im2col/ColumnExpansion.hpp"
#include "ops/internal/ClblastCache.hpp"
#include "ops/internal/ClblastCall.hpp"
#include "ops/internal/GradientSums.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "ops/internal/Storage.hpp"
#include "ops/internal/Widen.hpp"
#include "runtime/EmbeddedSources.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "wgrad-clblast";
constexpr const char* kGradientSums = "gradient_sums";
}  // namespace

std::vector<ProgramSpec> clblast_weight_gradient_programs(const ConvShapes& s, const ClblastWeightGradientConfig& c) {
    std::vector<ProgramSpec> list = im2col_programs(c.layout, /*bias=*/false);
    std::vector<KernelSpec> sums;
    if (c.writes_partials()) sums.push_back(internal::sum_partials_kernel());
    if (s.bias) sums.push_back(internal::bias_gradient_kernel());
    if (!sums.empty()) {
        list.push_back({kGradientSums, internal::storage_source() + embedded_source("gradient_sums"),
                        internal::storage_options(s.dtype), sums});
    }
    if (c.half) list.push_back(internal::widen_program());
    return list;
}

ClblastWeightGradientConv::ClblastWeightGradientConv(std::shared_ptr<Context> context, const ConvShapes& shapes,
                                                     const ClblastWeightGradientConfig& config)
    : context_(std::move(context)), shapes_(shapes), config_(config) {
    internal::clblast_will_use(*context_);
    const std::string widen_label = internal::widen_program().label;
    for (const ProgramSpec& spec : clblast_weight_gradient_programs(shapes_, config_)) {
        const cl::Program program = context_->programs().get_source(spec.label, spec.source, spec.options);
        if (spec.label == widen_label) {
            widen_ = internal::make_kernel(program, spec.kernels.front().name.c_str());
            continue;
        }
        if (spec.label != kGradientSums) {
            im2col_ = internal::make_kernel(program, spec.kernels.front().name.c_str());
            continue;
        }
        for (const KernelSpec& kernel : spec.kernels) {
            (kernel.name == internal::kSumPartialsKernel ? sum_partials_ : bias_gradient_) =
                internal::make_kernel(program, kernel.name.c_str());
        }
    }
}

void ClblastWeightGradientConv::enqueue(const Tensor&, const Tensor&, const Workspace&, internal::EventChain&) {
    throw Error("internal: wgrad-clblast computes weight gradients only; it was asked to run forward");
}

void ClblastWeightGradientConv::gemm(std::size_t a_offset, std::size_t a_stride, const cl::Buffer& b,
                                     std::size_t b_offset, std::size_t b_stride, const cl::Buffer& c,
                                     std::size_t c_offset, std::size_t c_stride, std::size_t pixels, std::size_t batch,
                                     float beta, const cl::Buffer& dy, const std::function<std::string()>& what,
                                     internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    const auto PQ = static_cast<std::size_t>(s.P() * s.Q());
    const auto kg = static_cast<std::size_t>(s.K / s.groups);
    const auto columns = static_cast<std::size_t>(s.C / s.groups * s.R * s.S);  // dW_g's columns
    internal::enqueue_clblast(
        chain, context_->queue(),
        [&](cl_command_queue* queue, cl_event* event) {
            return clblast::GemmStridedBatched(clblast::Layout::kRowMajor, clblast::Transpose::kNo,
                                               clblast::Transpose::kYes, kg, columns, pixels, 1.0f, dy(), a_offset, PQ,
                                               a_stride, b(), b_offset, PQ, b_stride, beta, c(), c_offset, columns,
                                               c_stride, batch, queue, event);
        },
        [&] {
            return "wgrad-clblast's strided-batched SGEMM (" + std::to_string(batch) + " x " + std::to_string(kg) +
                   "x" + std::to_string(columns) + "x" + std::to_string(pixels) + ", " + what() + ") for " + s.str();
        });
}

void ClblastWeightGradientConv::enqueue_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& dw,
                                                         const Tensor* db, float beta, const Workspace& workspace,
                                                         internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    const Im2colLayout& layout = config_.layout;
    internal::check_io(kName, s, x, dy);
    internal::check_weights(kName, s, dw, db);
    NETCL_REQUIRE(config_.workspace_bytes() == 0 ||
                      (workspace.buffer() && workspace.bytes >= config_.workspace_bytes() &&
                       workspace.offset_bytes % sizeof(float) == 0),
                  "wgrad-clblast: the workspace is missing or smaller than the " +
                      std::to_string(config_.workspace_bytes()) + " bytes it declared");
    const auto PQ = static_cast<std::size_t>(s.P() * s.Q());
    const auto groups = static_cast<std::size_t>(s.groups);
    const auto kg = static_cast<std::size_t>(s.K) / groups;
    const auto columns = static_cast<std::size_t>(s.C / s.groups * s.R * s.S);  // dW_g's columns
    const std::size_t image_columns = groups * columns * PQ;                      // C·R·S x P·Q
    const std::size_t dw_elements = groups * kg * columns;
    const std::size_t workspace_origin = workspace.offset_bytes / sizeof(float);
    const std::size_t partials = workspace_origin + layout.workspace_bytes / sizeof(float);
    const std::size_t dy_copy = partials + config_.partials_bytes / sizeof(float);
    const std::size_t image_dy = groups * kg * PQ;
    // float16: the SGEMMs read the batch's dy widened into the workspace.
    const cl::Buffer& a_buffer = config_.half ? workspace.buffer : dy.buffer();
    const auto chunks = static_cast<std::size_t>(config_.chunks), piece = static_cast<std::size_t>(config_.chunk_pixels);
    const std::size_t last_piece = PQ - (chunks - 1) * piece;
    const std::size_t whole_pieces = last_piece == piece ? chunks : chunks - 1;  // one batched call for these

    for (std::int64_t n0 = 0; n0 < s.N; n0 += layout.images_per_pass) {
        const std::int64_t images = std::min(layout.images_per_pass, s.N - n0);
        if (!layout.direct) {
            enqueue_columns(context_->queue(), im2col_, layout, s, x, workspace.buffer,
                            static_cast<cl_ulong>(workspace_origin), n0, images, chain);
        }
        const cl::Buffer& cols = layout.direct ? x.buffer() : workspace.buffer;
        // Image n of the pass (b = n - n0): its dy (float16: widened with its batch, from image b0 on) and its
        // columns (direct: x's image n is its C x H·W column matrix, H·W = P·Q).
        std::int64_t widened_from = 0;
        const auto a_image = [&](std::int64_t b) {
            return config_.half ? dy_copy + static_cast<std::size_t>(b - widened_from) * image_dy
                                : dy.offset() + static_cast<std::size_t>(n0 + b) * image_dy;
        };
        const auto b_image = [&](std::int64_t b) {
            return layout.direct ? x.offset() + static_cast<std::size_t>(n0 + b) * image_columns
                                 : workspace_origin + static_cast<std::size_t>(b) * image_columns;
        };
        if (!config_.writes_partials()) {  // each image's GEMM adds into dw, batched over the groups
            for (std::int64_t b = 0; b < images; ++b) {
                gemm(a_image(b), kg * PQ, cols, b_image(b), columns * PQ, dw.buffer(), dw.offset(), kg * columns, PQ,
                     groups, n0 + b == 0 ? beta : 1.0f, a_buffer, [&] { return "image " + std::to_string(n0 + b); },
                     chain);
            }
            continue;
        }
        // Batches of slot_images images, each image's pieces into slots of their own (a group's block within
        // each); the first batch writes every slot, later ones add into them. (Each CLBlast call costs its
        // launch and padding kernels: 0.4-0.6 ms of ResNet-50's res2 weight gradients at N = 8 on an H200
        // are 12-16 calls.)
        const auto slot_images = config_.slot_images;
        for (std::int64_t b0 = 0; b0 < images; b0 += slot_images) {
            const std::int64_t batch = std::min(slot_images, images - b0);
            const float slot_beta = n0 == 0 && b0 == 0 ? 0.0f : 1.0f;
            const auto which = [&] {
                return "images " + std::to_string(n0 + b0) + "-" + std::to_string(n0 + b0 + batch - 1);
            };
            if (config_.half) {
                internal::enqueue_widen(context_->queue(), widen_, dy, static_cast<std::size_t>(n0 + b0) * image_dy,
                                        static_cast<std::size_t>(batch) * image_dy, workspace.buffer, dy_copy, chain);
                widened_from = b0;
            }
            for (std::size_t g = 0; g < groups; ++g) {
                const std::size_t c_group = partials + g * kg * columns;
                const std::size_t a_group = g * kg * PQ, b_group = g * columns * PQ;
                if (config_.call_per_piece(batch)) {
                    for (std::size_t j = 0; j < chunks; ++j) {
                        gemm(a_image(b0) + a_group + j * piece, image_dy, cols, b_image(b0) + b_group + j * piece,
                             image_columns, workspace.buffer, c_group + j * dw_elements, chunks * dw_elements,
                             j + 1 < chunks ? piece : last_piece, static_cast<std::size_t>(batch), slot_beta, a_buffer,
                             [&] { return which() + ", piece " + std::to_string(j); }, chain);
                    }
                    continue;
                }
                for (std::int64_t b = b0; b < b0 + batch; ++b) {  // a call per image, over its whole pieces
                    const std::size_t a = a_image(b) + a_group, bb = b_image(b) + b_group;
                    const std::size_t c = c_group + static_cast<std::size_t>(b - b0) * chunks * dw_elements;
                    const auto image = [&] { return "image " + std::to_string(n0 + b); };
                    gemm(a, piece, cols, bb, piece, workspace.buffer, c, dw_elements, piece, whole_pieces, slot_beta,
                         a_buffer, [&] { return image() + ", pieces of " + std::to_string(piece) + " pixels"; }, chain);
                    if (whole_pieces < chunks) {
                        const std::size_t at = (chunks - 1) * piece;
                        gemm(a + at, piece, cols, bb + at, piece, workspace.buffer, c + (chunks - 1) * dw_elements,
                             dw_elements, last_piece, 1, slot_beta, a_buffer,
                             [&] { return image() + ", the last piece"; }, chain);
                    }
                }
            }
        }
    }
    if (config_.writes_partials()) {
        internal::enqueue_sum_partials(context_->queue(), sum_partials_, workspace.buffer, partials,
                                       config_.slots(), dw, beta, chain);
    }
    if (s.bias) internal::enqueue_bias_gradient(context_->queue(), bias_gradient_, s, dy, *db, beta, chain);
}

}  // namespace netcl
