// A 3-D layer's gradients as 2-D ones (ops/as_2d/DepthTaps.hpp). The gather:
// image (n, o) of the copy holds, as its channel c·T + t, the plane of x at
// depth o·stride_d + t·dilation_d - pad_front (zeros where that depth is
// padding), so a 2-D weight gradient over N·O images of C·T channels writes
// K x C/groups x T x R x S, the 3-D dw, as its K x (C·T)/groups x R x S. dy
// goes through the same kernel with T = 1 (its depth slices as images).
//
// A work-group a plane (64 work-items along it, each every 64th element), dim
// 1 the copy's channel, dim 2 its image: one work-item an element made
// 300,000 work-groups of r3d_18's first layer, whose scheduling on PoCL took
// longer than the copy. Elements move as their bits (kernels_cl/storage.cl's
// STORAGE_BITS).
__kernel void gather_depth_taps(__global const STORAGE* restrict from, const ulong from_offset,
                                __global STORAGE* restrict to, const ulong to_offset, const int C, const int D,
                                const int plane, const int O, const int T, const int stride_d,
                                const int pad_front, const int dilation_d) {
    const int lane = (int)get_local_id(0), lanes = (int)get_local_size(0);
    const int ct = (int)get_global_id(1);
    const int no = (int)get_global_id(2);
    const int c = ct / T, t = ct - c * T;
    const int n = no / O, o = no - n * O;
    const int d = o * stride_d + t * dilation_d - pad_front;
    __global STORAGE_BITS* out = (__global STORAGE_BITS*)to + to_offset + ((size_t)no * C * T + ct) * plane;
    if (d < 0 || d >= D) {
        for (int i = lane; i < plane; i += lanes) out[i] = 0;
        return;
    }
    __global const STORAGE_BITS* in =
        (__global const STORAGE_BITS*)from + from_offset + (((size_t)n * C + c) * D + d) * plane;
    for (int i = lane; i < plane; i += lanes) out[i] = in[i];
}

// Backward data's side: dx at depth d sums, over the taps t, the 2-D problem's
// dx of slice o = (d + pad_front - t·dilation_d) / stride_d at channel c·T + t,
// where that division is whole and o is a slice (the adjoint of the gather
// above). A tap at a time over the plane, the first stored and the others
// added: the taps are the same for the whole plane, and finding them per
// element (a division each) made the sum of r3d_18's layer2.stride2 cost as
// much as its 2-D backward data. Backward data takes this route in float32
// only (ops/as_2d/BackwardDataAs2d.hpp), where adding into dx a tap at a time
// rounds exactly as one sum in a register would.
//
// A work-group a plane of dx as above; dim 1 the channel c, dim 2 the image
// and depth (n, d).
__kernel void sum_depth_taps(__global const STORAGE* restrict from, const ulong from_offset,
                             __global STORAGE* restrict to, const ulong to_offset, const int C, const int D,
                             const int plane, const int O, const int T, const int stride_d, const int pad_front,
                             const int dilation_d) {
    const int lane = (int)get_local_id(0), lanes = (int)get_local_size(0);
    const int c = (int)get_global_id(1);
    const int nd = (int)get_global_id(2);
    const int n = nd / D, d = nd - n * D;
    const size_t out = to_offset + (((size_t)n * C + c) * D + d) * plane;
    int taken = 0;
    for (int t = 0; t < T; ++t) {
        const int e = d + pad_front - t * dilation_d;
        if (e < 0) break;  // and every later tap
        const int o = e / stride_d;
        if (o * stride_d != e || o >= O) continue;
        const size_t in = from_offset + (((size_t)n * O + o) * C * T + (size_t)c * T + t) * plane;
        if (taken) {
            for (int i = lane; i < plane; i += lanes) STORE(to, out + i, LOAD(to, out + i) + LOAD(from, in + i));
        } else {
            for (int i = lane; i < plane; i += lanes) STORE(to, out + i, LOAD(from, in + i));
        }
        taken = 1;
    }
    if (!taken) {
        for (int i = lane; i < plane; i += lanes) STORE(to, out + i, 0.0f);
    }
}
