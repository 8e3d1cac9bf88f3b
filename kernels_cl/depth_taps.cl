// A 3-D layer's gradients as 2-D ones (ops/as_2d/DepthTaps.hpp). The gather:
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

// Backward data's side: dx at depth d sums, over the taps t, the 2-D problem's
// dx of slice o = (d + pad_front - t·dilation_d) / stride_d at channel c·T + t,
// where that division is whole and o is a slice (the adjoint of the
// gather above); float32 sums, one rounding to the storage type.
//
// dim 0 along the plane, dim 1 the channel c, dim 2 the image and depth (n, d).
__kernel void sum_depth_taps(__global const STORAGE* restrict from, const ulong from_offset,
                             __global STORAGE* restrict to, const ulong to_offset, const int C, const int D,
                             const int plane, const int O, const int T, const int stride_d, const int pad_front,
                             const int dilation_d) {
    const int i = (int)get_global_id(0);
    const int c = (int)get_global_id(1);
    const int nd = (int)get_global_id(2);
    if (i >= plane) return;
    const int n = nd / D, d = nd - n * D;
    float sum = 0.0f;
    for (int t = 0; t < T; ++t) {
        const int e = d + pad_front - t * dilation_d;
        if (e < 0) break;  // and every later tap
        const int o = e / stride_d;
        if (o * stride_d != e || o >= O) continue;
        sum += LOAD(from, from_offset + (((size_t)n * O + o) * C * T + (size_t)c * T + t) * plane + i);
    }
    STORE(to, to_offset + (((size_t)n * C + c) * D + d) * plane + i, sum);
}
