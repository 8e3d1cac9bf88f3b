#pragma once
// Internal: backward data as forward convolutions, at any stride.
//
// At stride 1, dx is dy convolved with the filters rotated 180° and C and K
// swapped (Lavin & Gray §4.2). Under a stride s, dx rows fall into s phases:
// the rows h with (h + pad_top) mod s = a gather dy only through the filter
// rows r = a, a + s, a + 2s, ..., and from consecutive dy rows. So each phase
// (a, b) of the s_h x s_w is a stride-1 forward convolution of dy with a
// sub-filter of ceil((R - a)/s_h) x ceil((S - b)/s_w) taps, and every forward
// implementation (the GEMM engine's 1x1 and implicit GEMM among them) runs
// strided dgrad with no multiply by an inserted zero and no col2im. A phase
// with no taps (a 1x1 filter's odd rows under stride 2) is zeros.
//
// A 3-D layer runs so at stride 1 with padding within the filter's reach on
// every axis: one phase, the whole filter rotated on all three axes, whose
// forward output is dx itself (the scatter below is 2-D).
//
// Where a phase's forward output is not exactly its dx rows (any stride, or
// a padding past the dilated filter's reach) it is written to scratch and
// copied into its places in dx (kernels_cl/stride_phases.cl): under stride_w
// 2 a row phase's two column phases interleaved in one pass over its rows,
// else a pass a phase.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "netcl/ConvShapes.hpp"

namespace netcl {

// One axis of one phase.
struct AxisPhase {
    std::int64_t taps = 0;    // filter rows r = phase + t·stride, t < taps (stride 1: all R, dilated)
    std::int64_t first = 0;   // the phase's first dx row; the next are stride apart
    std::int64_t count = 0;   // dx rows in the phase (0: the phase has none, at tiny sizes)
    std::int64_t skip = 0;    // rows of the forward output before the first dx row
    std::int64_t length = 0;  // rows of the forward output (>= skip + count)
    std::int64_t pad_begin = 0, pad_end = 0;  // of the forward problem
};

struct BackwardDataPhase {
    std::int64_t a = 0, b = 0;  // the phase: (h + pad_top) mod stride_h, (w + pad_left) mod stride_w
    AxisPhase rows, cols;
    AxisPhase depth;  // 3-D: the depth axis at stride 1 (the whole filter); 2-D: unused
    // Has dx elements, and taps to compute them with (else they are zeros).
    bool has_elements() const { return rows.count > 0 && cols.count > 0; }
    bool has_taps() const { return rows.taps > 0 && cols.taps > 0; }
    // Its forward problem: input dy (N x K x P x Q; 3-D: x O before P), K' = C, the sub-filter,
    // stride 1, no bias; output N x C x rows.length x cols.length (3-D: depth.length first).
    ConvShapes forward;
};

struct BackwardDataPhases {
    std::vector<BackwardDataPhase> phases;  // row-major over (a, b); those with dx elements only
    // One phase whose forward output is dx as it is: no scratch, no copy.
    bool direct = false;
    // One phase with taps, whose sub-filter is the whole filter (a 1x1 layer at any stride, any at stride 1):
    // its forward problem can read the layer's filters rotated in place (ConvShapes::weights_transposed).
    bool whole_filter = false;
    // Floats of scratch for the phases' forward outputs when not direct,
    // each starting on a 64-float boundary.
    std::size_t scratch_floats() const;
    std::size_t scratch_offset(std::size_t phase_index) const;  // in floats
    std::int64_t forward_count() const;  // phases with taps
};

// Why backward data of `shapes` cannot run as forward convolutions (a stride
// and a dilation on the same axis; in 3-D, a stride or a padding past the
// filter's reach); nothing when it can.
std::optional<std::string> backward_data_phases_why_not(const ConvShapes& shapes);
BackwardDataPhases backward_data_phases(const ConvShapes& shapes);

}  // namespace netcl
