#include "ops/as_forward/BackwardDataPhases.hpp"

#include <algorithm>

namespace netcl {

namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

// dx rows h = phase - pad_begin + stride·i gather dy rows i - t·step through
// filter rows phase + t·stride (step: the dilation at stride 1, else 1).
AxisPhase axis_phase(std::int64_t phase, std::int64_t size, std::int64_t stride, std::int64_t dilation,
                     std::int64_t pad_begin, std::int64_t filter, std::int64_t dy_size) {
    AxisPhase p;
    p.taps = stride == 1 ? filter : (phase < filter ? ceil_div(filter - phase, stride) : 0);
    const std::int64_t i0 = ceil_div(pad_begin - phase, stride);
    const std::int64_t i1 = floor_div(size - 1 + pad_begin - phase, stride);
    p.count = std::max<std::int64_t>(0, i1 - i0 + 1);
    p.first = phase - pad_begin + stride * i0;
    if (p.taps == 0 || p.count == 0) return p;
    const std::int64_t step = stride == 1 ? dilation : 1;
    const std::int64_t reach = (p.taps - 1) * step;
    // The forward output's row j is dx's i = start + j; a padding cannot be
    // negative, so a start before i0 is skipped instead.
    const std::int64_t start = std::min(i0, reach);
    p.pad_begin = reach - start;
    p.skip = i0 - start;
    p.pad_end = std::max<std::int64_t>(0, p.skip + p.count - dy_size - p.pad_begin + reach);
    p.length = dy_size + p.pad_begin + p.pad_end - reach;
    return p;
}

constexpr std::size_t kScratchAlignFloats = 64;  // 256 bytes: every phase's output starts on a cache line

std::size_t aligned(std::size_t floats) { return (floats + kScratchAlignFloats - 1) / kScratchAlignFloats * kScratchAlignFloats; }

std::size_t output_floats(const BackwardDataPhase& p) {
    return p.has_taps() ? static_cast<std::size_t>(p.forward.N * p.forward.K * p.rows.length * p.cols.length) : 0;
}

}  // namespace

std::optional<std::string> backward_data_phases_why_not(const ConvShapes& s) {
    if (s.spatial_rank == 3) {
        if (s.stride_d != 1 || s.stride_h != 1 || s.stride_w != 1) {
            return "backward data as forward convolutions takes 3-D layers at stride 1 (its stride phases are 2-D); "
                   "this layer has stride " + std::to_string(s.stride_d) + "x" + std::to_string(s.stride_h) + "x" +
                   std::to_string(s.stride_w);
        }
        if (!backward_data_phases(s).direct) {
            return "backward data as forward convolutions takes 3-D layers padded within the filter's reach on every "
                   "axis (its forward output is then dx itself; placing it in dx is 2-D); this layer pads " +
                   std::to_string(s.pad_front) + "," + std::to_string(s.pad_top) + "," + std::to_string(s.pad_left) +
                   " / " + std::to_string(s.pad_back) + "," + std::to_string(s.pad_bottom) + "," +
                   std::to_string(s.pad_right) + " a " + std::to_string(s.T) + "x" + std::to_string(s.R) + "x" +
                   std::to_string(s.S) + " filter of dilation " + std::to_string(s.dilation_d) + "x" +
                   std::to_string(s.dilation_h) + "x" + std::to_string(s.dilation_w);
        }
        return std::nullopt;
    }
    if (s.spatial_rank != 2) {
        return "backward data as forward convolutions takes 2-D and 3-D layers; this one is " +
               std::to_string(s.spatial_rank) + "-D";
    }
    if ((s.stride_h > 1 && s.dilation_h > 1) || (s.stride_w > 1 && s.dilation_w > 1)) {
        return "backward data as forward convolutions takes a stride or a dilation on an axis, not both; this layer "
               "has stride " + std::to_string(s.stride_h) + "x" + std::to_string(s.stride_w) + " and dilation " +
               std::to_string(s.dilation_h) + "x" + std::to_string(s.dilation_w);
    }
    return std::nullopt;
}

BackwardDataPhases backward_data_phases(const ConvShapes& s) {
    BackwardDataPhases out;
    for (std::int64_t a = 0; a < s.stride_h; ++a) {
        for (std::int64_t b = 0; b < s.stride_w; ++b) {
            BackwardDataPhase p;
            p.a = a, p.b = b;
            p.rows = axis_phase(a, s.H, s.stride_h, s.dilation_h, s.pad_top, s.R, s.P());
            p.cols = axis_phase(b, s.W, s.stride_w, s.dilation_w, s.pad_left, s.S, s.Q());
            if (!p.has_elements()) continue;
            if (p.has_taps()) {
                ConvShapes& f = p.forward;
                f = s;
                f.direction = ConvDirection::FORWARD;
                f.C = s.K, f.H = s.P(), f.W = s.Q(), f.K = s.C;
                f.R = p.rows.taps, f.S = p.cols.taps;
                f.stride_h = f.stride_w = 1;
                f.dilation_h = s.stride_h == 1 ? s.dilation_h : 1;
                f.dilation_w = s.stride_w == 1 ? s.dilation_w : 1;
                f.bias = false;
                f.set_padding(p.rows.pad_begin, p.cols.pad_begin, p.rows.pad_end, p.cols.pad_end);
                if (s.spatial_rank == 3) {  // stride 1 (backward_data_phases_why_not): the whole filter's depth
                    p.depth = axis_phase(0, s.D, 1, s.dilation_d, s.pad_front, s.T, s.O());
                    f.D = s.O(), f.T = p.depth.taps;
                    f.stride_d = 1;
                    f.pad_front = p.depth.pad_begin, f.pad_back = p.depth.pad_end;
                }
            }
            out.phases.push_back(p);
        }
    }
    const auto with_taps = std::find_if(out.phases.begin(), out.phases.end(),
                                        [](const BackwardDataPhase& p) { return p.has_taps(); });
    out.whole_filter = out.forward_count() == 1 && with_taps->forward.T == s.T && with_taps->forward.R == s.R &&
                       with_taps->forward.S == s.S;
    const bool one = out.phases.size() == 1 && out.phases[0].has_taps();
    out.direct = one && s.stride_h == 1 && s.stride_w == 1 && out.phases[0].rows.skip == 0 &&
                 out.phases[0].cols.skip == 0 && out.phases[0].rows.length == s.H && out.phases[0].cols.length == s.W;
    if (s.spatial_rank == 3) {
        out.direct = out.direct && s.stride_d == 1 && out.phases[0].depth.skip == 0 &&
                     out.phases[0].depth.length == s.D;
    }
    return out;
}

std::size_t BackwardDataPhases::scratch_offset(std::size_t index) const {
    std::size_t offset = 0;
    for (std::size_t i = 0; i < index; ++i) offset += aligned(output_floats(phases[i]));
    return offset;
}

std::size_t BackwardDataPhases::scratch_floats() const {
    return direct ? 0 : scratch_offset(phases.size());
}

std::int64_t BackwardDataPhases::forward_count() const {
    return std::count_if(phases.begin(), phases.end(), [](const BackwardDataPhase& p) { return p.has_taps(); });
}

}  // namespace netcl
