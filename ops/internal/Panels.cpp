#include "ops/internal/Panels.hpp"

#include "ops/internal/KernelLaunch.hpp"
#include "ops/internal/Storage.hpp"
#include "runtime/EmbeddedSources.hpp"

namespace netcl::internal {

namespace {
// Work-groups of 256 work-items: PoCL pays a few microseconds a work-group, which with 16 (a channel each,
// one panel) left res4's x (1024 channels of 8 images of 14x14) at 3.3 ms, 2 GB/s.
constexpr std::size_t kRowsLocal = 32, kRowPanelsLocal = 8;  // eights of reduction steps x panels
constexpr std::size_t kColumnPanelsLocal = 4, kChannelsLocal = 64;
std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }
}  // namespace

ProgramSpec panels_program(DataType type) {
    return {"panels", storage_source() + embedded_source("panels"), storage_options(type),
            {{kPackRowPanels, {kRowsLocal, kRowPanelsLocal, 1}},
             {kPackRowPanelsTransposed, {kRowsLocal, kRowPanelsLocal, 1}},
             {kPackColumnPanels, {kColumnPanelsLocal, kChannelsLocal, 1}}}};
}

std::size_t row_panel_floats(std::int64_t groups, std::int64_t rows, std::int64_t cols, int mr) {
    return static_cast<std::size_t>(groups * ((rows + mr - 1) / mr) * cols * mr);
}

void enqueue_pack_rows(const cl::CommandQueue& queue, cl::Kernel& kernel, const Tensor& from, std::int64_t groups,
                       std::int64_t rows, std::int64_t cols, int mr, const cl::Buffer& out, EventChain& chain,
                       bool transposed) {
    const std::int64_t panels = (rows + mr - 1) / mr;
    const char* name = transposed ? kPackRowPanelsTransposed : kPackRowPanels;
    set_args(kernel, name, from.buffer(), offset_of(from), static_cast<cl_ulong>(rows * cols), out,
             static_cast<cl_ulong>(panels * cols * mr), static_cast<int>(rows), static_cast<int>(cols), mr);
    launch(queue, kernel, name,
           cl::NDRange(round_up(static_cast<std::size_t>((cols + 7) / 8), kRowsLocal),
                       round_up(static_cast<std::size_t>(panels), kRowPanelsLocal), static_cast<std::size_t>(groups)),
           cl::NDRange(kRowsLocal, kRowPanelsLocal, 1), chain);
}

ColumnSource column_source(const ConvShapes& s) {
    ColumnSource source;
    source.images = s.N;
    source.channels = s.C / s.groups;
    source.image_stride = s.C * s.H * s.W;
    source.H = s.H;
    source.W = s.W;
    source.P = s.P();
    source.Q = s.Q();
    source.R = s.R;
    source.S = s.S;
    source.stride_h = static_cast<int>(s.stride_h);
    source.stride_w = static_cast<int>(s.stride_w);
    source.pad_top = static_cast<int>(s.pad_top);
    source.pad_left = static_cast<int>(s.pad_left);
    source.dil_h = static_cast<int>(s.dilation_h);
    source.dil_w = static_cast<int>(s.dilation_w);
    return source;
}

Tensor packed_row_panels(const std::shared_ptr<Context>& context, cl::Kernel& kernel, const Tensor& from,
                         std::int64_t groups, std::int64_t rows, std::int64_t cols, int mr, EventChain& chain,
                         bool transposed) {
    Tensor panels = Tensor::empty(context, {static_cast<std::int64_t>(row_panel_floats(groups, rows, cols, mr))});
    enqueue_pack_rows(context->queue(), kernel, from, groups, rows, cols, mr, panels.buffer(), chain, transposed);
    return panels;
}

std::size_t column_panel_floats(const ColumnSource& source, int nr) {
    return static_cast<std::size_t>((source.columns() + nr - 1) / nr * nr * source.rows());
}

void enqueue_pack_columns(const cl::CommandQueue& queue, cl::Kernel& kernel, const Tensor& from, std::size_t first,
                          const ColumnSource& s, int nr, const cl::Buffer& out, std::size_t out_offset_floats,
                          EventChain& chain) {
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    const std::int64_t panels = (s.columns() + nr - 1) / nr;
    set_args(kernel, kPackColumnPanels, from.buffer(), offset_of(from) + static_cast<cl_ulong>(first),
             static_cast<cl_ulong>(s.image_stride),
             static_cast<cl_ulong>(s.H * s.W), out, static_cast<cl_ulong>(out_offset_floats), i(s.channels),
             i(s.columns()), i(s.H), i(s.W), i(s.P), i(s.Q), i(s.R), i(s.S), s.stride_h, s.stride_w, s.pad_top,
             s.pad_left, s.dil_h, s.dil_w, nr);
    launch(queue, kernel, kPackColumnPanels,
           cl::NDRange(round_up(static_cast<std::size_t>(panels), kColumnPanelsLocal),
                       round_up(static_cast<std::size_t>(s.channels), kChannelsLocal)),
           cl::NDRange(kColumnPanelsLocal, kChannelsLocal), chain);
}

}  // namespace netcl::internal
