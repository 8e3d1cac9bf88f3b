// Winograd filter transform U = G g G^T, run once per set_weights.
//
// Needs the prelude of ops/winograd/WinogradSource.cpp (WINO_ALPHA, WINO_G)
// and the fused kernel's K block BK (built into the same program).
// Weights: K x Cg x 3 x 3 (K = groups x Kg), in the layer's storage type (kernels_cl/storage.cl). U, laid out as the fused kernel
// reads it: [group][Kp / BK][Cp][alpha*alpha][BK], Kp = Kg rounded up to the
// fused kernel's K block BK and Cp = Cg rounded up to its C step BC, the
// padding (k >= Kg or c >= Cg) written as zeros so the fused kernel needs no
// bounds checks on U. One work-group's U for one
// step of C is then one contiguous piece of memory, read front to back.
//
// NDRange: dim0 = Kp (contiguous k: coalesced stores), dim1 = Cp, dim2 = groups.

__kernel void winograd_weights(__global const STORAGE* restrict w, const ulong w_offset, __global float* restrict u,
                               const int Cg, const int Cp, const int Kg, const int Kp) {
    w += w_offset;
    const int k = (int)get_global_id(0);
    const int c = (int)get_global_id(1);
    const int group = (int)get_global_id(2);
    if (k >= Kp || c >= Cp) return;

    float g[3][3];
    float t[WINO_ALPHA][3];
    float v[WINO_ALPHA][WINO_ALPHA];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            g[i][j] = (k < Kg && c < Cg) ? LOAD(w, (((size_t)group * Kg + k) * Cg + c) * 9 + i * 3 + j) : 0.0f;

    // t = G g (each column), then v = t G^T (each row).
#define GCOL(i) g[i][j]
#define TCOL(i) t[i][j]
    for (int j = 0; j < 3; ++j) { WINO_G(GCOL, TCOL) }
#define TROW(j) t[i][j]
#define VROW(j) v[i][j]
    for (int i = 0; i < WINO_ALPHA; ++i) { WINO_G(TROW, VROW) }

    const int kblock = k / BK;
    __global float* out = u + (((size_t)group * (Kp / BK) + kblock) * Cp + c) * WINO_ALPHA * WINO_ALPHA * BK + k % BK;
    // Unrolled, so v[][] is indexed with constants and stays in registers
    // (rolled, clang's NVPTX path puts it on the stack: 144 bytes for F(4x4)).
#pragma unroll
    for (int e = 0; e < WINO_ALPHA * WINO_ALPHA; ++e) out[e * BK] = v[e / WINO_ALPHA][e % WINO_ALPHA];
#undef GCOL
#undef TCOL
#undef TROW
#undef VROW
}
