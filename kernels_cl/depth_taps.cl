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
// longer than the copy. gather_depth_taps moves elements as their bits
// (kernels_cl/storage.cl's STORAGE_BITS), for a 2-D problem in the layer's
// type (the weight gradient); gather_depth_taps_widened writes float32, for
// backward data, whose 2-D problem runs in float32 (the sum below).
#define GATHER_DEPTH_TAPS(NAME, OUT, VALUE)                                                                        \
    __kernel void NAME(__global const STORAGE* restrict from, const ulong from_offset, __global OUT* restrict to,  \
                       const ulong to_offset, const int C, const int D, const int plane, const int O, const int T, \
                       const int stride_d, const int pad_front, const int dilation_d) {                            \
        const int lane = (int)get_local_id(0), lanes = (int)get_local_size(0);                                    \
        const int ct = (int)get_global_id(1);                                                                      \
        const int no = (int)get_global_id(2);                                                                      \
        const int c = ct / T, t = ct - c * T;                                                                      \
        const int n = no / O, o = no - n * O;                                                                      \
        const int d = o * stride_d + t * dilation_d - pad_front;                                                   \
        __global OUT* out = to + to_offset + ((size_t)no * C * T + ct) * plane;                                    \
        if (d < 0 || d >= D) {                                                                                     \
            for (int i = lane; i < plane; i += lanes) out[i] = 0;                                                  \
            return;                                                                                                \
        }                                                                                                          \
        const size_t in = from_offset + (((size_t)n * C + c) * D + d) * plane;                                     \
        for (int i = lane; i < plane; i += lanes) out[i] = VALUE;                                                  \
    }
GATHER_DEPTH_TAPS(gather_depth_taps, STORAGE_BITS, ((__global const STORAGE_BITS*)from)[in + i])
GATHER_DEPTH_TAPS(gather_depth_taps_widened, float, LOAD(from, in + i))

// Backward data's side: dx at depth d sums, over the taps t, the 2-D problem's
// dx (float32) of slice o = (d + pad_front - t·dilation_d) / stride_d at
// channel c·T + t, where that division is whole and o is a slice (the adjoint
// of the gather above). A tap at a time over the plane, added into the first
// tap's plane of the scratch (each (o, t) reaches one depth only, so no other
// work-group reads it), then stored to dx, rounded once to its type: the taps
// are the same for the whole plane, and finding them per element (a division
// each) made the sum of r3d_18's layer2.stride2 cost as much as its 2-D
// backward data.
//
// A work-group a plane of dx as above; dim 1 the channel c, dim 2 the image
// and depth (n, d).
__kernel void sum_depth_taps(__global float* restrict parts, const ulong parts_offset,
                             __global STORAGE* restrict to, const ulong to_offset, const int C, const int D,
                             const int plane, const int O, const int T, const int stride_d, const int pad_front,
                             const int dilation_d) {
    const int lane = (int)get_local_id(0), lanes = (int)get_local_size(0);
    const int c = (int)get_global_id(1);
    const int nd = (int)get_global_id(2);
    const int n = nd / D, d = nd - n * D;
    const size_t out = to_offset + (((size_t)n * C + c) * D + d) * plane;
    int taken = 0;
    size_t first = 0;
    for (int t = 0; t < T; ++t) {
        const int e = d + pad_front - t * dilation_d;
        if (e < 0) break;  // and every later tap
        const int o = e / stride_d;
        if (o * stride_d != e || o >= O) continue;
        const size_t in = parts_offset + (((size_t)n * O + o) * C * T + (size_t)c * T + t) * plane;
        if (taken) {
            for (int i = lane; i < plane; i += lanes) parts[first + i] += parts[in + i];
        } else {
            first = in;
        }
        taken = 1;
    }
    for (int i = lane; i < plane; i += lanes) STORE(to, out + i, taken ? parts[first + i] : 0.0f);
}
