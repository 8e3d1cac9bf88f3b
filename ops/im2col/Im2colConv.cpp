#include "ops/im2col/Im2colConv.hpp"

#include <algorithm>

#include "ops/internal/ClblastStatus.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "runtime/Error.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "IM2COL";
}  // namespace

Im2colConv::Im2colConv(std::shared_ptr<Context> context, const ConvShapes& shapes, std::size_t workspace_limit_bytes)
    : context_(std::move(context)), shapes_(shapes) {
    shapes_.validate();
    layout_ = im2col_layout(shapes_, workspace_limit_bytes);
    if (!layout_.direct) {
        im2col_ = internal::make_kernel(context_->programs().get("im2col"), "im2col");
        cl_int status = CL_SUCCESS;
        columns_ = cl::Buffer(context_->cl_context(), CL_MEM_READ_WRITE, layout_.workspace_bytes, nullptr, &status);
        NETCL_CL_CHECK(status, "allocating IM2COL's column workspace of " + std::to_string(layout_.workspace_bytes) +
                                   " bytes for " + shapes_.str());
    }
    if (shapes_.bias) bias_add_ = internal::make_kernel(context_->programs().get("bias_add"), "bias_add");
}

void Im2colConv::set_weights(const Tensor& weights, const Tensor* bias) {
    internal::check_weights(kName, shapes_, weights, bias);
    weights_ = weights;
    bias_ = shapes_.bias ? *bias : Tensor{};
    has_weights_ = true;
}

void Im2colConv::enqueue(const Tensor& x, Tensor& y, std::vector<cl::Event>& events) {
    NETCL_REQUIRE(has_weights_, "IM2COL: enqueue before set_weights; expected weights first");
    internal::check_io(kName, shapes_, x, y);
    const ConvShapes& s = shapes_;
    const auto P = s.P(), Q = s.Q(), PQ = P * Q;
    const auto Cg = s.C / s.groups, Kg = s.K / s.groups;
    const auto rows_per_group = static_cast<std::size_t>(Cg * s.R * s.S);  // GEMM inner dimension
    cl_command_queue queue = context_->queue()();
    auto i = [](std::int64_t v) { return static_cast<int>(v); };

    for (std::int64_t n0 = 0; n0 < s.N; n0 += layout_.images_per_pass) {
        const std::int64_t images = std::min(layout_.images_per_pass, s.N - n0);
        const cl::Buffer* columns = &x.buffer();
        std::size_t columns_origin = static_cast<std::size_t>(n0 * s.C * s.H * s.W);  // floats
        if (!layout_.direct) {
            internal::set_args(im2col_, "im2col", x.buffer(), columns_, i(n0), i(s.C), i(s.H), i(s.W), i(P), i(Q),
                               i(s.R), i(s.S), i(s.stride_h), i(s.stride_w), i(s.pad_h), i(s.pad_w), i(s.dilation_h),
                               i(s.dilation_w));
            internal::launch(context_->queue(), im2col_, "im2col",
                             cl::NDRange(static_cast<std::size_t>(PQ), static_cast<std::size_t>(s.C * s.R * s.S),
                                         static_cast<std::size_t>(images)),
                             cl::NDRange(64, 1, 1), events);
            columns = &columns_;
            columns_origin = 0;
        }
        // One GEMM per (image, group) of the pass; image b's group g columns
        // start g·(C/g·R·S) rows into its block, its outputs g·K/g rows into y's.
        const std::size_t batch = static_cast<std::size_t>(images * s.groups);
        std::vector<std::size_t> a_offsets(batch), b_offsets(batch), c_offsets(batch);
        std::vector<float> alphas(batch, 1.0f), betas(batch, 0.0f);
        for (std::size_t e = 0; e < batch; ++e) {
            const auto b = static_cast<std::int64_t>(e) / s.groups, g = static_cast<std::int64_t>(e) % s.groups;
            a_offsets[e] = static_cast<std::size_t>(g) * static_cast<std::size_t>(Kg) * rows_per_group;
            b_offsets[e] = columns_origin + (static_cast<std::size_t>(b) * s.groups + g) * rows_per_group * PQ;
            c_offsets[e] = (static_cast<std::size_t>(n0 + b) * s.K + static_cast<std::size_t>(g * Kg)) * PQ;
        }
        cl_event event = nullptr;
        internal::check_clblast(
            clblast::GemmBatched(clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo,
                                 static_cast<std::size_t>(Kg), static_cast<std::size_t>(PQ), rows_per_group,
                                 alphas.data(), weights_.buffer()(), a_offsets.data(), rows_per_group, (*columns)(),
                                 b_offsets.data(), static_cast<std::size_t>(PQ), betas.data(), y.buffer()(),
                                 c_offsets.data(), static_cast<std::size_t>(PQ), batch, &queue, &event),
            "IM2COL's batched SGEMM (" + std::to_string(batch) + " x " + std::to_string(Kg) + "x" +
                std::to_string(PQ) + "x" + std::to_string(rows_per_group) + ") for " + s.str());
        events.emplace_back(event);
    }
    if (s.bias) {
        internal::set_args(bias_add_, "bias_add", y.buffer(), bias_.buffer(), i(s.K), i(PQ));
        internal::launch(context_->queue(), bias_add_, "bias_add",
                         cl::NDRange(static_cast<std::size_t>(PQ), static_cast<std::size_t>(s.N * s.K)),
                         cl::NDRange(64, 1), events);
    }
}

}  // namespace netcl
