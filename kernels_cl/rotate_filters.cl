// Backward data as forward convolutions (Lavin & Gray §4.2; ops/as_forward/):
// dx is dy convolved, at stride 1, with the filters rotated 180° and C and K
// swapped within each group. Under a stride, each phase (a, b) of dx takes
// the sub-filter of rows a, a + stride_h, ... and columns b, b + stride_w, ...
// (taps_r x taps_s of them); at stride 1 that is the whole filter:
//   out[g*Cg + c][kk][taps_r-1-t][taps_s-1-u] = w[g*Kg + kk][c][a + t*stride_h][b + u*stride_w],
// so out is C x K/groups x taps_r x taps_s. Run once per set_weights (in
// training, every step). It transposes K and C, through local memory a tap
// at a time: a work-group reads a TILE x TILE block of filters along w's
// channels and writes it along out's filters, so that both sides run along
// memory. A work-item a filter read filters Cg*R*S floats apart, 4 KiB for a
// 1x1 layer of 1024 channels, all in one cache set: res5.projection's
// rotation took 12-15 ms of its backward data with new weights (2 Xeon
// cores, PoCL 3.1); a work-item an element had made 110,000 work-groups for
// a 512-channel 3x3x3 layer. NDRange: dim0 = Cg and dim1 = K/groups, each
// rounded up to TILE, dim2 = groups; work-groups TILE x TILE.
#define TILE 16
__kernel void rotate_filters(__global const STORAGE* restrict w, const ulong w_offset, __global STORAGE* restrict out,
                             const int K, const int Cg, const int R, const int S, const int groups, const int a,
                             const int b, const int stride_h, const int stride_w, const int taps_r,
                             const int taps_s) {
    __local STORAGE_BITS tile[TILE][TILE + 1];
    const int Kg = K / groups;
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const int c0 = (int)get_group_id(0) * TILE, kk0 = (int)get_group_id(1) * TILE, g = (int)get_global_id(2);
    const int taps = taps_r * taps_s;
    // Read: filter kk0 + ly, channel c0 + lx of w. Write: out's filter (g*Cg + c0 + ly) * Kg + kk0 + lx.
    const bool reads = kk0 + ly < Kg && c0 + lx < Cg, writes = kk0 + lx < Kg && c0 + ly < Cg;
    __global const STORAGE_BITS* from =
        (__global const STORAGE_BITS*)w + w_offset + ((size_t)(g * Kg + kk0 + ly) * Cg + c0 + lx) * R * S;
    __global STORAGE_BITS* to = (__global STORAGE_BITS*)out + ((size_t)(g * Cg + c0 + ly) * Kg + kk0 + lx) * taps;
    for (int t = 0; t < taps_r; ++t) {
        for (int u = 0; u < taps_s; ++u) {
            const int r = a + t * stride_h, s = b + u * stride_w;
            if (reads) tile[ly][lx] = from[r * S + s];
            barrier(CLK_LOCAL_MEM_FENCE);
            if (writes) to[(taps_r - 1 - t) * taps_s + taps_s - 1 - u] = tile[lx][ly];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
}
#undef TILE
