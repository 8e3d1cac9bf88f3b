// The 3-D weight gradient as a 2-D one (ops/as_2d/WeightGradientAs2d.hpp):
// image (n, o) of the copy holds, as its channel c·T + t, the plane of x at
// depth o·stride_d + t·dilation_d - pad_front (zeros where that depth is
// padding), so a 2-D weight gradient over N·O images of C·T channels writes
// K x C/groups x T x R x S, the 3-D dw, as its K x (C·T)/groups x R x S. dy
// goes through the same kernel with T = 1 (its depth slices as images).
//
// One work-item an element: dim 0 along the plane (runs of reads and writes),
// dim 1 the copy's channel, dim 2 its image. Elements move as their bits
// (kernels_cl/storage.cl's STORAGE_BITS).
__kernel void gather_depth_taps(__global const STORAGE* restrict from, const ulong from_offset,
                                __global STORAGE* restrict to, const ulong to_offset, const int C, const int D,
                                const int plane, const int O, const int T, const int stride_d,
                                const int pad_front, const int dilation_d) {
    const int i = (int)get_global_id(0);
    const int ct = (int)get_global_id(1);
    const int no = (int)get_global_id(2);
    if (i >= plane) return;
    const int c = ct / T, t = ct - c * T;
    const int n = no / O, o = no - n * O;
    const int d = o * stride_d + t * dilation_d - pad_front;
    STORAGE_BITS v = 0;
    if (d >= 0 && d < D) v = ((__global const STORAGE_BITS*)from)[from_offset + (((size_t)n * C + c) * D + d) * plane + i];
    ((__global STORAGE_BITS*)to)[to_offset + ((size_t)no * C * T + ct) * plane + i] = v;
}
