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

// dw[i] = beta * dw[i] + sum[j]: a weight gradient's float32 sum blended
// into the caller's dw. j = i, or with rows > 0 the sum holds each group's
// block of dw (rows x length) transposed: dw's [g][r][l] at [g][l][r] (the
// weight gradient that read x in place and copied dy). A work-item takes j
// = its id, reading the sum in order and writing dw across: read across (a
// line a float), ResNet's res5.expand weight gradient at N = 8 (4 MiB of
// sums) took 38 ms against 17 (Zen 3). NDRange: dim0 = dw's elements.
__kernel void blend_weight_gradient(__global const float* restrict sum, const ulong sum_offset, const int count,
                                    __global STORAGE* restrict dw, const ulong dw_offset, const float beta,
                                    const int rows, const int length) {
    const int j = (int)get_global_id(0);
    if (j >= count) return;
    int i = j;
    if (rows > 0) {  // j = g * block + l * rows + r -> i = g * block + r * length + l
        const int block = rows * length, within = j % block;
        i = j - within + (within % rows) * length + within / rows;
    }
    dw += dw_offset;
    STORE(dw, i, gradient_blend(beta, dw, i, sum[sum_offset + j]));
}
