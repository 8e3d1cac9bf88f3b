// Backward data as forward convolutions (Lavin & Gray §4.2; ops/as_forward/):
// dx is dy convolved, at stride 1, with the filters rotated 180° and C and K
// swapped within each group. Under a stride, each phase (a, b) of dx takes
// the sub-filter of rows a, a + stride_h, ... and columns b, b + stride_w, ...
// (taps_r x taps_s of them); at stride 1 that is the whole filter:
//   out[g*Cg + c][kk][taps_r-1-t][taps_s-1-u] = w[g*Kg + kk][c][a + t*stride_h][b + u*stride_w],
// so out is C x K/groups x taps_r x taps_s. Run once per set_weights (in
// training, every step): one work-item per filter of out, its taps in a loop.
// One work-item an element made a work-group for every 64 taps, 110,000 of
// them for a 512-channel 3x3x3 layer (r3d_18's layer4), whose scheduling on
// PoCL took about 75 ms of each set_weights before its backward data.
__kernel void rotate_filters(__global const STORAGE* restrict w, const ulong w_offset, __global STORAGE* restrict out,
                             const int K, const int Cg, const int R, const int S, const int groups, const int a,
                             const int b, const int stride_h, const int stride_w, const int taps_r,
                             const int taps_s) {
    const int f = (int)get_global_id(0);  // out's filter: (g*Cg + c) * K/groups + kk
    const int Kg = K / groups;
    if (f >= K * Cg) return;
    const int kk = f % Kg;
    const int cc = f / Kg;  // g*Cg + c: out's leading index
    const int g = cc / Cg, c = cc % Cg;
    __global const STORAGE_BITS* from =
        (__global const STORAGE_BITS*)w + w_offset + ((size_t)(g * Kg + kk) * Cg + c) * R * S;
    __global STORAGE_BITS* to = (__global STORAGE_BITS*)out + (size_t)f * taps_r * taps_s;
    for (int t = 0; t < taps_r; ++t) {
        for (int u = 0; u < taps_s; ++u) {
            const int r = a + t * stride_h, s = b + u * stride_w;
            to[(taps_r - 1 - t) * taps_s + taps_s - 1 - u] = from[r * S + s];
        }
    }
}
