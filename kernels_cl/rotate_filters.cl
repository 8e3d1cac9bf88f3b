// Backward data as a forward convolution (Lavin & Gray §4.2): dx is dy
// convolved, at stride 1, with the filters rotated 180° and C and K swapped
// within each group:
//   w'[g*Cg + c][kk][R-1-r][S-1-s] = w[g*Kg + kk][c][r][s],
// so w' is C x K/groups x R x S. Run once per set_weights; one work-item per
// element of w, reading w in order.
__kernel void rotate_filters(__global const float* restrict w, const ulong w_offset, __global float* restrict rotated,
                             const int K, const int Cg, const int R, const int S, const int groups) {
    const int i = (int)get_global_id(0);
    if (i >= K * Cg * R * S) return;
    const int s = i % S;
    const int r = (i / S) % R;
    const int c = (i / (R * S)) % Cg;
    const int k = i / (Cg * R * S);
    const int Kg = K / groups;
    const int g = k / Kg, kk = k % Kg;
    rotated[(((g * Cg + c) * Kg + kk) * R + (R - 1 - r)) * S + (S - 1 - s)] = w[w_offset + i];
}
