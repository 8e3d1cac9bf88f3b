// C (+)= A · Dᵀ where A and D both run along the reduction: row m of A and
// row n of D are each K contiguous elements, C[m][n] their dot product. The
// weight gradient's two operands lie so in NCHW: dy's channel planes (K/groups
// x pixels) and x's columns (C/groups·R·S x pixels, forward's im2col layout,
// or x's own planes for a 1x1 stride-1 layer), so dW = dY · colsᵀ needs
// neither transposed. gemm.cl's broadcast form needs one operand across its
// columns: the weight gradient copied dy transposed a chunk at a time, and on
// VGG's conv1.1 (27 taps, K = 64, N = 8) that copy took as long as the GEMM
// (perf: 8.7% against 8.4% of the run's samples, 2 cores of an Intel Xeon,
// AVX-512).
//
// A tile is MR rows of A x NR rows of D: MR * NR vector accumulators
// of VW lanes, each lane a partial sum over every VW-th element; a step loads
// MR + NR vectors for MR * NR FMAs (the broadcast form's ratio at the same
// accumulator count), and the lanes are summed once at the end. The rows are
// clamped to the matrix's last (their sums discarded), a reduction's last
// K % VW elements go one at a time into lane 0.
//
// Work-items run along D's row tiles first (dimension 0): the next one
// re-reads the same rows of A (dy), now in cache, where along A's tiles it
// would fetch new dy rows from memory every time: VGG's conv1.1 at N = 8, a
// tile a work-item, 25.7 -> 19.1-20.7 ms (best of 5; 2 cores of an Intel
// Xeon, AVX-512). Tried and level there: prefetching A's (and D's) rows
// 64-256 floats ahead; tiles 6 x 4, 5 x 5, 3 x 8, 8 x 3.
//
// DOT_TILES_M x DOT_TILES_N tiles a work-item, each taken in turn over a
// block of DOT_KB elements of the reduction: the block's MR * TILES_M +
// NR * TILES_N rows come from the L2 once and serve every tile from L1
// (a tile alone uses each loaded vector for MR or NR FMAs); the tiles' sums
// wait in private memory between blocks. VGG's conv1.1 at N = 8: a tile a
// work-item in 1 MiB chunks 17.9, 18.0 ms, 2 x 5 tiles over blocks of 256 in
// 16 MiB chunks 17.9, 14.6; 2 x 5 tiles in 1 MiB chunks 20.6-22.0, so the
// larger chunks (fewer launches, each reading its rows once) carry the gain
// with the tiles (selector/profiles/pocl-cpu-avx512-intel.json, item 14).
//
// The reduction runs over `images` stretches of K, each operand's next
// stretch a_image (d_image) elements on (one launch over every image of a
// layer whose operands lie in place). Batched over groups (dimension 2).
//
// D_PHASES: D's rows are the taps of x's columns read from x's stride phases
// (kernels_cl/phase_taps.cl, which goes before this file), not a copy of the
// columns: row n starts at its tap's offset, and the stretches are output
// rows (K = Q, d_image = phase_width, a_image = Q). The columns of VGG's
// conv1.1 are 27 floats a pixel, 5.4 MB an image, re-read by every
// work-item's rows of dy from beyond the L2; its phases are x padded, 0.6 MB.
// Kernel arguments taps_r, taps_s, stride_h, stride_w, dil_h, dil_w,
// phase_rows, phase_width after accumulate.
//
// Build options: DOT_MR, DOT_NR, DOT_VW (4, 8 or 16); DOT_TILES_M, DOT_TILES_N,
// DOT_KB (default 1, 1, 256); A_TYPE, D_TYPE (float or half: storage.cl's
// LOADN_AS; the accumulation is float32 either way); D_PHASES.

#if !defined(DOT_MR) || !defined(DOT_NR) || !defined(DOT_VW)
#error "gemm_dot needs DOT_MR, DOT_NR and DOT_VW from its configuration"
#endif
#ifndef A_TYPE
#define A_TYPE float
#endif
#ifndef D_TYPE
#define D_TYPE float
#endif

#if DOT_VW == 4
typedef float4 dot_vec;
#define DOT_VSTORE vstore4
#elif DOT_VW == 8
typedef float8 dot_vec;
#define DOT_VSTORE vstore8
#elif DOT_VW == 16
typedef float16 dot_vec;
#define DOT_VSTORE vstore16
#else
#error "DOT_VW must be 4, 8 or 16"
#endif

// The lanes summed pairwise (once a tile, after the reduction), through a
// private array: oclgrind 21.10 took the same sums written as .lo + .hi
// halvings for uninitialised values (every tile's store reported).
inline float dot_lanes_sum(const dot_vec v) {
    float lanes[DOT_VW];
    DOT_VSTORE(v, 0, lanes);
#pragma unroll
    for (int width = DOT_VW / 2; width > 0; width /= 2)
#pragma unroll
        for (int i = 0; i < width; ++i) lanes[i] += lanes[i + width];
    return lanes[0];
}

#ifndef DOT_TILES_M
#define DOT_TILES_M 1
#endif
#ifndef DOT_TILES_N
#define DOT_TILES_N 1
#endif
#ifndef DOT_KB
#define DOT_KB 256
#endif
#if DOT_KB % DOT_VW
#error "DOT_KB must be a multiple of DOT_VW"
#endif
#define DOT_TILES (DOT_TILES_M * DOT_TILES_N)

// C's rows m_base.. and columns n_base.. of entry g. accumulate: add to C's
// contents (a later stretch of the reduction), else overwrite.
__kernel void gemm_dot(__global const A_TYPE* a, const ulong a_offset, const int lda, const long a_batch,
                       const long a_image, __global const D_TYPE* d, const ulong d_offset, const int ldd,
                       const long d_batch, const long d_image, __global float* c, const ulong c_offset,
                       const int ldc, const long c_batch, const int M, const int N, const int K, const int images,
                       const int accumulate
#ifdef D_PHASES
                       , const int taps_r, const int taps_s, const int stride_h, const int stride_w, const int dil_h,
                       const int dil_w, const int phase_rows, const int phase_width
#endif
                       ) {
// Where D's row n (clamped into the matrix) starts.
#ifdef D_PHASES
#define D_ROW(n) \
    ((long)phase_tap_offset(min((n), N - 1), taps_r, taps_s, stride_h, stride_w, dil_h, dil_w, phase_rows, phase_width))
#else
#define D_ROW(n) ((long)min((n), N - 1) * ldd)
#endif
    const int m_base = (int)get_global_id(1) * (DOT_MR * DOT_TILES_M);
    const int n_base = (int)get_global_id(0) * (DOT_NR * DOT_TILES_N);
    const long g = (long)get_global_id(2);
    if (m_base >= M || n_base >= N) return;
    __global const A_TYPE* a0 = a + a_offset + g * a_batch;
    __global const D_TYPE* d0 = d + d_offset + g * d_batch;
    dot_vec acc[DOT_TILES][DOT_MR][DOT_NR];
    for (int t = 0; t < DOT_TILES; ++t)
#pragma unroll
        for (int i = 0; i < DOT_MR; ++i)
#pragma unroll
            for (int j = 0; j < DOT_NR; ++j) acc[t][i][j] = (dot_vec)(0.0f);
    // D's rows' starts, once: under D_PHASES each is a tap's offset (divisions), the same for every stretch.
    long d_rows[DOT_TILES_N][DOT_NR];
    for (int tn = 0; tn < DOT_TILES_N; ++tn)
#pragma unroll
        for (int j = 0; j < DOT_NR; ++j) d_rows[tn][j] = D_ROW(n_base + tn * DOT_NR + j);
    const int whole = K - K % DOT_VW;
    for (int image = 0; image < images; ++image) {
        __global const A_TYPE* ai = a0 + image * a_image;
        __global const D_TYPE* di = d0 + image * d_image;
        for (int kb = 0; kb < whole; kb += DOT_KB) {
            const int k_end = min(kb + DOT_KB, whole);
            for (int tm = 0; tm < DOT_TILES_M && m_base + tm * DOT_MR < M; ++tm) {
                long a_row[DOT_MR];
#pragma unroll
                for (int i = 0; i < DOT_MR; ++i) a_row[i] = (long)min(m_base + tm * DOT_MR + i, M - 1) * lda;
                for (int tn = 0; tn < DOT_TILES_N && n_base + tn * DOT_NR < N; ++tn) {
                    long d_row[DOT_NR];
#pragma unroll
                    for (int j = 0; j < DOT_NR; ++j) d_row[j] = d_rows[tn][j];
                    dot_vec tile[DOT_MR][DOT_NR];
#pragma unroll
                    for (int i = 0; i < DOT_MR; ++i)
#pragma unroll
                        for (int j = 0; j < DOT_NR; ++j) tile[i][j] = acc[tm * DOT_TILES_N + tn][i][j];
                    for (int k = kb; k < k_end; k += DOT_VW) {
                        dot_vec av[DOT_MR];
#pragma unroll
                        for (int i = 0; i < DOT_MR; ++i) av[i] = LOADN_AS(A_TYPE, DOT_VW, 0, ai + a_row[i] + k);
#pragma unroll
                        for (int j = 0; j < DOT_NR; ++j) {
                            const dot_vec dv = LOADN_AS(D_TYPE, DOT_VW, 0, di + d_row[j] + k);
#pragma unroll
                            for (int i = 0; i < DOT_MR; ++i) tile[i][j] = fma(av[i], dv, tile[i][j]);
                        }
                    }
#pragma unroll
                    for (int i = 0; i < DOT_MR; ++i)
#pragma unroll
                        for (int j = 0; j < DOT_NR; ++j) acc[tm * DOT_TILES_N + tn][i][j] = tile[i][j];
                }
            }
        }
        for (int k = whole; k < K; ++k) {
            for (int tm = 0; tm < DOT_TILES_M && m_base + tm * DOT_MR < M; ++tm) {
                for (int tn = 0; tn < DOT_TILES_N && n_base + tn * DOT_NR < N; ++tn) {
#pragma unroll
                    for (int j = 0; j < DOT_NR; ++j) {
                        const float dk = LOAD_AS(D_TYPE, di, d_rows[tn][j] + k);
#pragma unroll
                        for (int i = 0; i < DOT_MR; ++i) {
                            const float ak = LOAD_AS(A_TYPE, ai, (long)min(m_base + tm * DOT_MR + i, M - 1) * lda + k);
                            acc[tm * DOT_TILES_N + tn][i][j].s0 = fma(ak, dk, acc[tm * DOT_TILES_N + tn][i][j].s0);
                        }
                    }
                }
            }
        }
    }
    __global float* c0 = c + c_offset + g * c_batch;
    for (int tm = 0; tm < DOT_TILES_M; ++tm) {
        for (int tn = 0; tn < DOT_TILES_N; ++tn) {
#pragma unroll
            for (int i = 0; i < DOT_MR; ++i) {
#pragma unroll
                for (int j = 0; j < DOT_NR; ++j) {
                    const int m = m_base + tm * DOT_MR + i, n = n_base + tn * DOT_NR + j;
                    if (m < M && n < N) {
                        const long at = (long)m * ldc + n;
                        const float sum = dot_lanes_sum(acc[tm * DOT_TILES_N + tn][i][j]);
                        if (accumulate) {
                            c0[at] += sum;
                        } else {
                            c0[at] = sum;
                        }
                    }
                }
            }
        }
    }
}
