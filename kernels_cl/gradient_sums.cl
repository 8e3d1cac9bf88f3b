// Sums that finish a weight gradient, shared by the implementations that
// compute one (naive, wgrad-gemm, wgrad-clblast). Every sum runs in one fixed order, so a
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

// Eight consecutive elements of dw = beta * dw + `values`, in one vector
// load and store: a lone half store is ~20 integer operations on PoCL
// (vstore_half8 is one F16C conversion), which made res5's 2048 x 512 blend
// 3.3 ms in half against 1.7 in float32 (N = 8, Zen 3).
inline void blend_eight(const float beta, __global STORAGE* dw, const float8 values) {
    STOREN(8, beta == 0.0f ? values : fma((float8)(beta), LOADN(8, 0, dw), values), 0, dw);
}

// dw[i] = beta * dw[i] + sum[i]: a weight gradient's float32 sum blended
// into the caller's dw, eight elements a work-item (the last takes the
// tail one at a time). NDRange: dim0 = ceil(count / 8).
__kernel void blend_weight_gradient(__global const float* restrict sum, const ulong sum_offset, const int count,
                                    __global STORAGE* restrict dw, const ulong dw_offset, const float beta) {
    const int i = (int)get_global_id(0) * 8;
    if (i >= count) return;
    dw += dw_offset;
    sum += sum_offset;
    if (i + 8 <= count) {
        blend_eight(beta, dw + i, vload8(0, sum + i));
    } else {
        for (int j = i; j < count; ++j) STORE(dw, j, gradient_blend(beta, dw, j, sum[j]));
    }
}

// The same from a sum that holds each group's block of dw (rows x length)
// transposed: dw's [g][r][l] at [g][l][r] (the weight gradient that took x's
// columns and dy). A work-item takes an 8 x 8 block, reading 8 lines of the
// sum and writing 8 of dw: a work-item an element reads or writes across, a
// line a float, and where the sums outgrow the caches that is the cost:
// ResNet's res5.expand weight gradient at N = 8 (4 MiB of sums) took 38 ms
// reading across, 17 writing across (Zen 3). A whole block is read as 8
// vectors and transposed in private memory: res5.reduce.first's (512 x 1024)
// blend 1.2-1.6 -> 0.54 ms against 64 scalar loads (Zen 3, NETCL_KTRACE
// event times; work-groups of 8 x 8 or 1 x 64 blocks 0.59-0.83, of one
// 0.54). NDRange: dim0 = ceil(rows / 8), dim1 = ceil(length / 8), dim2 =
// groups.
__kernel void blend_weight_gradient_transposed(__global const float* restrict sum, const ulong sum_offset,
                                               __global STORAGE* restrict dw, const ulong dw_offset,
                                               const float beta, const int rows, const int length) {
    const int r0 = (int)get_global_id(0) * 8, l0 = (int)get_global_id(1) * 8;
    if (r0 >= rows || l0 >= length) return;
    const size_t block = (size_t)get_global_id(2) * rows * length;
    sum += sum_offset + block;
    dw += dw_offset + block;
    const int nr = min(8, rows - r0), nl = min(8, length - l0);
    if (nr == 8 && nl == 8) {
        float tile[64];  // tile[a * 8 + b] = the sum's line l0 + a, element r0 + b
        for (int a = 0; a < 8; ++a) vstore8(vload8(0, sum + (size_t)(l0 + a) * rows + r0), a, tile);
        for (int b = 0; b < 8; ++b) {
            const float8 row = (float8)(tile[b], tile[8 + b], tile[16 + b], tile[24 + b], tile[32 + b],
                                        tile[40 + b], tile[48 + b], tile[56 + b]);
            blend_eight(beta, dw + (size_t)(r0 + b) * length + l0, row);
        }
        return;
    }
    for (int b = 0; b < nr; ++b) {
        if (nl == 8) {
            float values[8];
            for (int a = 0; a < 8; ++a) values[a] = sum[(size_t)(l0 + a) * rows + r0 + b];
            blend_eight(beta, dw + (size_t)(r0 + b) * length + l0, vload8(0, values));
            continue;
        }
        for (int a = 0; a < nl; ++a) {
            const size_t i = (size_t)(r0 + b) * length + l0 + a;
            STORE(dw, i, gradient_blend(beta, dw, i, sum[(size_t)(l0 + a) * rows + r0 + b]));
        }
    }
}

// dw[i] = beta * dw[i] + the sum over p of partials[p][i]: `count` partial
// gradients of `elements` floats each (wgrad-clblast's pieces of one image's
// reduction, each its own GEMM), added in p order, one work-item an element
// (consecutive work-items read consecutive floats of each partial).
// NDRange: dim0 = elements rounded up to the work-group size.
__kernel void sum_weight_gradient_partials(__global const float* restrict partials, const ulong partials_offset,
                                           const int count, const int elements, __global STORAGE* restrict dw,
                                           const ulong dw_offset, const float beta) {
    const int i = (int)get_global_id(0);
    if (i >= elements) return;
    partials += partials_offset;
    dw += dw_offset;
    float sum = 0.0f;
    for (int p = 0; p < count; ++p) sum += partials[(size_t)p * elements + i];
    STORE(dw, i, gradient_blend(beta, dw, i, sum));
}
