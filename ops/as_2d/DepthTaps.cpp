#include "ops/as_2d/DepthTaps.hpp"

#include "netcl/Error.hpp"
#include "ops/internal/KernelLaunch.hpp"
#include "ops/internal/Storage.hpp"
#include "runtime/EmbeddedSources.hpp"
#include "runtime/ProgramCache.hpp"

namespace netcl {

namespace {
constexpr const char* kFile = "depth_taps";
constexpr const char* kGather = "gather_depth_taps";
constexpr const char* kGatherWidened = "gather_depth_taps_widened";
constexpr const char* kSum = "sum_depth_taps";
constexpr std::size_t kLocal = 64;  // a work-group a plane (kernels_cl/depth_taps.cl says why)
// Each copy starts on a 256-byte boundary, as the workspaces' parts elsewhere.
constexpr std::size_t kAlignBytes = 256;

std::size_t aligned(std::size_t bytes) { return (bytes + kAlignBytes - 1) / kAlignBytes * kAlignBytes; }
// The copies are in the 2-D problem's type.
std::size_t slices_bytes(const ConvShapes& s) {  // N·O images of K planes
    return aligned(static_cast<std::size_t>(s.output_numel()) * size_of(depth_taps_problem(s).dtype));
}
std::size_t taps_bytes(const ConvShapes& s) {  // N·O images of C·T planes
    return aligned(static_cast<std::size_t>(s.N * s.O() * s.C * s.T * s.H * s.W) * size_of(depth_taps_problem(s).dtype));
}
int i(std::int64_t v) { return static_cast<int>(v); }
}  // namespace

ConvShapes depth_taps_problem(const ConvShapes& s) {
    ConvShapes flat = s;
    flat.spatial_rank = 2;
    flat.N = s.N * s.O();
    flat.C = s.C * s.T;
    flat.D = flat.T = 1;
    flat.stride_d = flat.dilation_d = 1;
    flat.pad_front = flat.pad_back = 0;
    // Backward data's 2-D dx holds each tap's part, summed into dx afterwards: in float32, so that a half
    // layer's dx is rounded once (the parts and dy's slices widened, the filters widened at set_weights).
    if (s.direction == ConvDirection::BACKWARD_DATA) flat.dtype = DataType::FLOAT32;
    return flat;
}

std::size_t depth_taps_scratch_bytes(const ConvShapes& s) { return slices_bytes(s) + taps_bytes(s); }

ProgramSpec depth_taps_program(DataType type) {
    return {kFile, internal::storage_source() + embedded_source(kFile), internal::storage_options(type),
            {{kGather, {kLocal, 1, 1}}, {kGatherWidened, {kLocal, 1, 1}}, {kSum, {kLocal, 1, 1}}}};
}

DepthTaps::DepthTaps(std::shared_ptr<Context> context, const ConvShapes& shapes)
    : context_(std::move(context)), shapes_(shapes), flat_(depth_taps_problem(shapes)) {
    const ProgramSpec spec = depth_taps_program(shapes_.dtype);
    const cl::Program program = context_->programs().get_source(spec.label, spec.source, spec.options);
    // Into the 2-D problem's type: bits moved where it is the layer's, else widened (backward data in half).
    const char* gather = flat_.dtype == shapes_.dtype ? kGather : kGatherWidened;
    gather_ = internal::make_kernel(program, gather);
    gather_name_ = gather;
    sum_ = internal::make_kernel(program, kSum);
}

void DepthTaps::check(const char* strategy, const Workspace& workspace) const {
    const std::size_t scratch = depth_taps_scratch_bytes(shapes_);
    if (!workspace.buffer() || workspace.bytes < scratch) {
        throw Error(std::string(strategy) + ": needs a workspace of at least " + std::to_string(scratch) +
                    " bytes for the copies of dy's depth slices and the depth taps; got " +
                    std::to_string(workspace.bytes));
    }
}

Tensor DepthTaps::slices(const Workspace& workspace) const {
    return Tensor::view(context_, workspace.buffer(), workspace.offset_bytes, flat_.output_shape(), flat_.dtype);
}

Tensor DepthTaps::taps(const Workspace& workspace) const {
    return Tensor::view(context_, workspace.buffer(), workspace.offset_bytes + slices_bytes(shapes_),
                        flat_.input_shape(), flat_.dtype);
}

Workspace DepthTaps::rest(const Workspace& workspace) const {
    const std::size_t scratch = depth_taps_scratch_bytes(shapes_);
    return {workspace.buffer, workspace.offset_bytes + scratch, workspace.bytes - scratch};
}

void DepthTaps::gather_slices(const Tensor& dy, const Workspace& workspace, internal::EventChain& chain) {
    // dy through the taps' gather with one tap of stride 1: slice (n, o) of its K planes an image.
    const ConvShapes& s = shapes_;
    const Tensor to = slices(workspace);
    internal::set_args(gather_, gather_name_, dy.buffer(), internal::offset_of(dy), workspace.buffer,
                       internal::offset_of(to), i(s.K), i(s.O()), i(s.P() * s.Q()), i(s.O()), 1, 1, 0, 1);
    internal::launch(context_->queue(), gather_, gather_name_,
                     cl::NDRange(kLocal, static_cast<std::size_t>(s.K), static_cast<std::size_t>(s.N * s.O())),
                     cl::NDRange(kLocal, 1, 1), chain);
}

void DepthTaps::gather_taps(const Tensor& x, const Workspace& workspace, internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    const Tensor to = taps(workspace);
    internal::set_args(gather_, gather_name_, x.buffer(), internal::offset_of(x), workspace.buffer, internal::offset_of(to),
                       i(s.C), i(s.D), i(s.H * s.W), i(s.O()), i(s.T), i(s.stride_d), i(s.pad_front),
                       i(s.dilation_d));
    internal::launch(context_->queue(), gather_, gather_name_,
                     cl::NDRange(kLocal, static_cast<std::size_t>(s.C * s.T), static_cast<std::size_t>(s.N * s.O())),
                     cl::NDRange(kLocal, 1, 1), chain);
}

void DepthTaps::sum_taps(const Workspace& workspace, const Tensor& dx, internal::EventChain& chain) {
    const ConvShapes& s = shapes_;
    const Tensor from = taps(workspace);
    internal::set_args(sum_, kSum, workspace.buffer, internal::offset_of(from), dx.buffer(), internal::offset_of(dx),
                       i(s.C), i(s.D), i(s.H * s.W), i(s.O()), i(s.T), i(s.stride_d), i(s.pad_front),
                       i(s.dilation_d));
    internal::launch(context_->queue(), sum_, kSum,
                     cl::NDRange(kLocal, static_cast<std::size_t>(s.C), static_cast<std::size_t>(s.N * s.D)),
                     cl::NDRange(kLocal, 1, 1), chain);
}

}  // namespace netcl
