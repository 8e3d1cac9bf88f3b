// Backward data as forward convolutions (Lavin & Gray §4.2; ops/as_forward/):
// dx is dy convolved, at stride 1, with the filters rotated 180° and C and K
// swapped within each group. Under a stride, each phase (a, b) of dx takes
// the sub-filter of rows a, a + stride_h, ... and columns b, b + stride_w, ...
// (taps_r x taps_s of them); at stride 1 that is the whole filter:
//   out[g*Cg + c][kk][taps_r-1-t][taps_s-1-u] = w[g*Kg + kk][c][a + t*stride_h][b + u*stride_w],
// so out is C x K/groups x taps_r x taps_s. Run once per set_weights; one
// work-item per element of out.
__kernel void rotate_filters(__global const STORAGE* restrict w, const ulong w_offset, __global STORAGE* restrict out,
                             const int K, const int Cg, const int R, const int S, const int groups, const int a,
                             const int b, const int stride_h, const int stride_w, const int taps_r,
                             const int taps_s) {
    const int i = (int)get_global_id(0);
    const int Kg = K / groups;
    if (i >= K * Cg * taps_r * taps_s) return;
    const int u = taps_s - 1 - i % taps_s;
    const int t = taps_r - 1 - (i / taps_s) % taps_r;
    const int kk = (i / (taps_r * taps_s)) % Kg;
    const int cc = i / (Kg * taps_r * taps_s);  // g*Cg + c: out's leading index
    const int g = cc / Cg, c = cc % Cg;
    const int r = a + t * stride_h, s = b + u * stride_w;
    ((__global STORAGE_BITS*)out)[i] =
        ((__global const STORAGE_BITS*)w)[w_offset + (((size_t)(g * Kg + kk) * Cg + c) * R + r) * S + s];
}
