#include "ops/as_2d/WeightGradientAs2d.hpp"

#include "netcl/Error.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "ops/internal/Storage.hpp"
#include "runtime/EmbeddedSources.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kName = "3-D weight gradient as 2-D";
constexpr const char* kFile = "depth_taps";
constexpr const char* kGather = "gather_depth_taps";
constexpr std::size_t kLocal = 64;  // along a plane, as the other copies
// Each copy starts on a 256-byte boundary, as the workspaces' parts elsewhere.
constexpr std::size_t kAlignBytes = 256;

std::size_t aligned(std::size_t bytes) { return (bytes + kAlignBytes - 1) / kAlignBytes * kAlignBytes; }

std::size_t taps_bytes(const ConvShapes& s) {  // x's depth taps: N·O images of C·T planes
    return aligned(static_cast<std::size_t>(s.N * s.O() * s.C * s.T * s.H * s.W) * size_of(s.dtype));
}
std::size_t slices_bytes(const ConvShapes& s) {  // dy's depth slices: N·O images of K planes
    return aligned(static_cast<std::size_t>(s.output_numel()) * size_of(s.dtype));
}
}  // namespace

ConvShapes weight_gradient_as_2d_problem(const ConvShapes& s) {
    ConvShapes flat = s;
    flat.spatial_rank = 2;
    flat.N = s.N * s.O();
    flat.C = s.C * s.T;
    flat.D = flat.T = 1;
    flat.stride_d = flat.dilation_d = 1;
    flat.pad_front = flat.pad_back = 0;
    return flat;
}

std::size_t weight_gradient_as_2d_scratch_bytes(const ConvShapes& s) { return taps_bytes(s) + slices_bytes(s); }

ProgramSpec depth_taps_program(DataType type) {
    return {kFile, internal::storage_source() + embedded_source(kFile), internal::storage_options(type),
            {{kGather, {kLocal, 1, 1}}}};
}

WeightGradientAs2d::WeightGradientAs2d(std::shared_ptr<Context> context, const ConvShapes& shapes,
                                       std::unique_ptr<ConvStrategy> flat)
    : context_(std::move(context)),
      shapes_(shapes),
      flat_shapes_(weight_gradient_as_2d_problem(shapes)),
      flat_(std::move(flat)) {
    const ProgramSpec spec = depth_taps_program(shapes_.dtype);
    gather_ = internal::make_kernel(context_->programs().get_source(spec.label, spec.source, spec.options), kGather);
}

void WeightGradientAs2d::set_weights(const Tensor&, const Tensor*, internal::EventChain&) {}  // reads no weights

void WeightGradientAs2d::enqueue(const Tensor&, const Tensor&, const Workspace&, internal::EventChain&) {
    throw Error("internal: a weight-gradient strategy was asked to run forward");
}

void WeightGradientAs2d::enqueue_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& dw,
                                                  const Tensor* db, float beta, const Workspace& workspace,
                                                  internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    internal::check_io(kName, s, x, dy);
    internal::check_weights(kName, s, dw, db);
    const std::size_t scratch = weight_gradient_as_2d_scratch_bytes(s);
    if (!workspace.buffer() || workspace.bytes < scratch) {
        throw Error(std::string(kName) + ": needs a workspace of at least " + std::to_string(scratch) +
                    " bytes for the copies of x's depth taps and dy's slices; got " + std::to_string(workspace.bytes));
    }
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    const auto gather = [&](const Tensor& from, std::size_t to_bytes, std::int64_t channels, std::int64_t depth,
                            std::int64_t plane, std::int64_t taps, std::int64_t stride, std::int64_t pad,
                            std::int64_t dilation) {
        internal::set_args(gather_, kGather, from.buffer(), internal::offset_of(from), workspace.buffer,
                           static_cast<cl_ulong>(to_bytes / size_of(s.dtype)), i(channels), i(depth), i(plane),
                           i(s.O()), i(taps), i(stride), i(pad), i(dilation));
        const std::size_t run = (static_cast<std::size_t>(plane) + kLocal - 1) / kLocal * kLocal;
        internal::launch(context_->queue(), gather_, kGather,
                         cl::NDRange(run, static_cast<std::size_t>(channels * taps), static_cast<std::size_t>(s.N * s.O())),
                         cl::NDRange(kLocal, 1, 1), chain);
    };
    const std::size_t taps_at = workspace.offset_bytes;
    const std::size_t slices_at = taps_at + taps_bytes(s);
    gather(x, taps_at, s.C, s.D, s.H * s.W, s.T, s.stride_d, s.pad_front, s.dilation_d);
    gather(dy, slices_at, s.K, s.O(), s.P() * s.Q(), 1, 1, 0, 1);
    const ConvShapes& f = flat_shapes_;
    const Tensor taps = Tensor::view(context_, workspace.buffer(), taps_at, f.input_shape(), s.dtype);
    const Tensor slices = Tensor::view(context_, workspace.buffer(), slices_at, f.output_shape(), s.dtype);
    // K x C/groups x T x R x S is K x (C·T)/groups x R x S: the caller's dw, read as the 2-D one.
    const Tensor flat_dw = Tensor::view(context_, dw.buffer()(), dw.offset_bytes(), f.weight_shape(), s.dtype);
    const Workspace rest{workspace.buffer, workspace.offset_bytes + scratch, workspace.bytes - scratch};
    flat_->enqueue_backward_weights(taps, slices, flat_dw, db, beta, rest, chain);
}

}  // namespace netcl
