// Sums that finish a weight gradient, shared by the implementations that
// compute one (naive, wgrad-gemm). Every sum runs in one fixed order, so a
// gradient is the same bit for bit on every run.
//
// A gradient is written as beta * old + new; beta = 0 never reads the old
// value (a NaN there does not survive an overwrite, as in BLAS and cuDNN).
// Built after kernels_cl/storage.cl: dw and db are the caller's tensors.
inline float gradient_blend(const float beta, __global const STORAGE* gradient, const size_t i, const float value) {
    return beta == 0.0f ? value : fma(beta, LOAD(gradient, i), value);
}

// db[k] = sum over n and every output position (P x Q; O x P x Q in 3-D) of
// dy[n][k][...], one work-item per channel.
__kernel void bias_gradient(__global const STORAGE* restrict dy, const ulong dy_offset, __global STORAGE* restrict db,
                            const ulong db_offset, const float beta, const int N, const int K, const int positions) {
    dy += dy_offset;
    db += db_offset;
    const int k = (int)get_global_id(0);
    if (k >= K) return;
    float acc = 0.0f;
    for (int n = 0; n < N; ++n) {
        __global const STORAGE* dyk = dy + (size_t)(n * K + k) * positions;
        for (int i = 0; i < positions; ++i) acc += LOAD(dyk, i);
    }
    STORE(db, k, gradient_blend(beta, db, k, acc));
}

// dw[i] = beta * dw[i] + the sum over `parts` partial gradients of
// part[b * count + i], b in order: a pass's images' GEMM results, added once
// the pass is done. NDRange: dim0 = count elements.
__kernel void sum_partials(__global const float* restrict part, const ulong part_offset, const int parts,
                           const int count, __global STORAGE* restrict dw, const ulong dw_offset, const float beta) {
    const int i = (int)get_global_id(0);
    if (i >= count) return;
    part += part_offset;
    float acc = 0.0f;
    for (int b = 0; b < parts; ++b) acc += part[(size_t)b * count + i];
    dw += dw_offset;
    STORE(dw, i, gradient_blend(beta, dw, i, acc));
}
