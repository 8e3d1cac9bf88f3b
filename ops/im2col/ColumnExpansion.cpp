#include "ops/im2col/ColumnExpansion.hpp"

#include "ops/internal/KernelLaunch.hpp"

namespace netcl {

KernelSpec column_kernel(const Im2colLayout& layout) {
    return layout.by_rows ? KernelSpec{"im2col_rows", {4, 1, 1}} : KernelSpec{"im2col", {64, 1, 1}};
}

void enqueue_columns(const cl::CommandQueue& queue, cl::Kernel& kernel, const Im2colLayout& layout,
                     const ConvShapes& s, const Tensor& x, const cl::Buffer& workspace, cl_ulong origin,
                     std::int64_t n0, std::int64_t images, internal::EventChain& chain) {
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    const KernelSpec spec = column_kernel(layout);
    const std::int64_t P = s.P(), Q = s.Q();
    internal::set_args(kernel, spec.name.c_str(), x.buffer(), internal::offset_of(x), workspace, origin, i(n0), i(s.C),
                       i(s.H), i(s.W), i(P), i(Q), i(s.R), i(s.S), i(s.stride_h), i(s.stride_w), i(s.pad_top),
                       i(s.pad_left), i(s.dilation_h), i(s.dilation_w));
    // A row of columns a work-item (dim0 = output rows), or a column (dim0 = P·Q).
    internal::launch(queue, kernel, spec.name.c_str(),
                     cl::NDRange(static_cast<std::size_t>(layout.by_rows ? P : P * Q),
                                 static_cast<std::size_t>(s.C * s.R * s.S), static_cast<std::size_t>(images)),
                     cl::NDRange(spec.work_group[0], spec.work_group[1], spec.work_group[2]), chain);
}

}  // namespace netcl
