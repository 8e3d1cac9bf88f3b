// Separate-transform Winograd's input and output transforms with the tiles
// of one tile row in the lanes of a vector (TL = 8 or 16 tiles a
// work-item), for CPUs. Same layouts and results as winograd_gemm_input /
// winograd_gemm_output in kernels_cl/winograd_gemm.cl (which needs to come
// first: it has the prelude's macros in use and A2).
//
// Why: there a work-item transforms one tile, and PoCL vectorises across
// work-items, so tile t's input is read with gathers (neighbouring tiles
// are m floats apart) and its output written with masked scatters. perf on
// VGG's conv1.2 with F(6x6) (PoCL 3.1, AVX-512): input transform 47% of the
// kernel time, output 33%, the GEMM 20%. Here a work-item reads the rows
// its TL tiles span as contiguous floats, deals them into lanes with
// register permutes (WINO_DEAL, generated), and writes its output rows back
// contiguously (WINO_UNDEAL):
// no gathers, no scatters.
//
// NDRange: dim0 = the pass's tile rows x groups_per_row (TL tiles each),
// dim1 = C (input) or K (output). A tile row is one ty of one image, over
// all images: row = n * tiles_h + ty; its tile tx is tile row * tiles_w + tx,
// and lane l of group g holds tx = g * TL + l. Lanes past the row's last
// tile or outside the pass [tile0, tile0 + T) are neither stored nor read
// from M (an edge span may read their input floats, zeroed after the deal).

#if WINO_TILE != WINO_ALPHA
#error "the row kernels take tiles of real points only (alpha = m + r - 1; WinogradMatrices.hpp)"
#endif

#if TL == 16
typedef float16 tvec_t;
typedef int16 ivec_t;
#define TVLOAD vload16
#define TVSTORE vstore16
#define LANE_IDS (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#elif TL == 8
typedef float8 tvec_t;
typedef int8 ivec_t;
#define TVLOAD vload8
#define TVSTORE vstore8
#define LANE_IDS (int8)(0, 1, 2, 3, 4, 5, 6, 7)
#else
#error "TL (tiles a work-item) must be 8 or 16"
#endif

// The input row span of TL tiles (they overlap by alpha - m), read as
// WINO_SPAN_VECS whole vectors.
#define SPAN_FLOATS (WINO_SPAN_VECS * TL)

// Which lanes of group g hold tiles of the pass; false when none do.
bool tile_lanes(const int g, const int groups_per_row, const int row0, const int tiles_w, const int tile0,
                       const int T, int* row, int* tx0, int* t_first, int* lane_lo, int* lane_hi) {
    *row = row0 + g / groups_per_row;
    *tx0 = (g - (g / groups_per_row) * groups_per_row) * TL;
    *t_first = *row * tiles_w + *tx0 - tile0;  // lane l is the pass's tile t_first + l
    *lane_lo = max(0, -*t_first);
    *lane_hi = min(min(TL, tiles_w - *tx0), T - *t_first);
    return *lane_lo < *lane_hi;
}

__kernel void winograd_gemm_input_rows(__global const X_TYPE* restrict x, const ulong x_offset,
                                       __global float* restrict v, const ulong v_offset, const int N, const int C,
                                       const int H, const int W, const int pad_top, const int pad_left, const int tiles_w,
                                       const int tiles_h, const int tile0, const int T, const int groups_per_row,
                                       const int row0, const int groups) {
    const int g = (int)get_global_id(0), c = (int)get_global_id(1);
    if (g >= groups || c >= C) return;
    int row, tx0, t_first, lane_lo, lane_hi;
    if (!tile_lanes(g, groups_per_row, row0, tiles_w, tile0, T, &row, &tx0, &t_first, &lane_lo, &lane_hi)) return;
    const int n = row / tiles_h, ty = row - n * tiles_h;
    const int iy0 = ty * WINO_M - pad_top, ix0 = tx0 * WINO_M - pad_left;
    const long image = ((long)n * C + c) * H * W, x_floats = (long)N * C * H * W;
    const bool span_in_row = ix0 >= 0 && ix0 + SPAN_FLOATS <= W;

    // r = d B per input row (the row transform), as each row is read.
    tvec_t r[WINO_ALPHA][WINO_ALPHA];
#pragma unroll
    for (int i = 0; i < WINO_ALPHA; ++i) {
        const int iy = iy0 + i;
        tvec_t seg[WINO_SPAN_VECS];
        // A span over the row's edge (padding, the ragged last tile) is
        // read whole too, its floats outside the row (the neighbouring rows'
        // or channels') zeroed by lane after the deal; only a span that
        // would run off the tensor is copied a float at a time. On
        // conv3.2's shape (56 wide: 10 tiles of 6, 14 of 4) every group
        // has an edge span; the input transform went from 1.01-1.07 to
        // 0.76-0.77 ms with F(4x4), 1.40-1.44 to 1.18-1.20 with F(6x6)
        // (min of 30, two alternating runs each).
        const long at = image + (long)iy * W + ix0;
        const bool row_in = iy >= 0 && iy < H;
        const bool whole = row_in && (span_in_row || (at >= 0 && at + SPAN_FLOATS <= x_floats));
        if (whole) {
            __global const X_TYPE* rp = x + x_offset + at;
#pragma unroll
            for (int q = 0; q < WINO_SPAN_VECS; ++q) seg[q] = LOADN_AS(X_TYPE, TL, q, rp);
        } else {
            // Padding and the ragged edge: the part inside the image copied, zeros around it.
            float f[SPAN_FLOATS];
            for (int s = 0; s < SPAN_FLOATS; ++s) f[s] = 0.0f;
            if (iy >= 0 && iy < H) {
                __global const X_TYPE* rp = x + x_offset + at;  // element s of the span is rp[s]
                const int lo = max(0, -ix0), hi = min(SPAN_FLOATS, W - ix0);
                for (int s = lo; s < hi; ++s) f[s] = LOAD_AS(X_TYPE, rp, s);
            }
#pragma unroll
            for (int q = 0; q < WINO_SPAN_VECS; ++q) seg[q] = TVLOAD(q, f);
        }
        tvec_t d[WINO_ALPHA];
        WINO_DEAL(seg, d)
        if (whole && !span_in_row) {
            const ivec_t col0 = ix0 + LANE_IDS * WINO_M;  // lane l's first input column
#pragma unroll
            for (int j = 0; j < WINO_ALPHA; ++j) {
                const ivec_t col = col0 + j;
                d[j] = select((tvec_t)(0.0f), d[j], (col >= 0) & (col < W));
            }
        }
#define DROW(j) d[j]
#define RROW(j) r[i][j]
        WINO_BT(DROW, RROW)
#undef DROW
#undef RROW
    }
    // V = B^T r, column by column, each element stored as it is made.
    __global float* vp = v + v_offset + (size_t)c * T + t_first;
    const bool all_lanes = lane_lo == 0 && lane_hi == TL;
#pragma unroll
    for (int j = 0; j < WINO_ALPHA; ++j) {
        tvec_t out[WINO_ALPHA];
#define RCOL(i) r[i][j]
#define OUT(i) out[i]
        WINO_BT(RCOL, OUT)
#undef RCOL
#undef OUT
#pragma unroll
        for (int i = 0; i < WINO_ALPHA; ++i) {
            __global float* ep = vp + (size_t)(i * WINO_ALPHA + j) * C * T;
            if (all_lanes) {
                TVSTORE(out[i], 0, ep);
            } else {
                float lanes[TL];
                TVSTORE(out[i], 0, lanes);
                for (int l = lane_lo; l < lane_hi; ++l) ep[l] = lanes[l];
            }
        }
    }
}

__kernel void winograd_gemm_output_rows(__global const float* restrict m, const ulong m_offset,
                                        __global STORAGE* restrict y, const ulong y_offset,
                                        __global const STORAGE* restrict bias, const ulong bias_offset,
                                        const int has_bias, const int K, const int P, const int Q, const int tiles_w,
                                        const int tiles_h, const int tile0, const int T, const int groups_per_row,
                                        const int row0, const int groups) {
    const int g = (int)get_global_id(0), k = (int)get_global_id(1);
    if (g >= groups || k >= K) return;
    int row, tx0, t_first, lane_lo, lane_hi;
    if (!tile_lanes(g, groups_per_row, row0, tiles_w, tile0, T, &row, &tx0, &t_first, &lane_lo, &lane_hi)) return;
    const bool all_lanes = lane_lo == 0 && lane_hi == TL;
    __global const float* mp = m + m_offset + (size_t)k * T + t_first;

    // s = A^T M, column by column; the lanes outside the pass read as 0.
    tvec_t s[WINO_M][WINO_ALPHA];
#pragma unroll
    for (int j = 0; j < WINO_ALPHA; ++j) {
        tvec_t col[WINO_ALPHA];
#pragma unroll
        for (int i = 0; i < WINO_ALPHA; ++i) {
            __global const float* ep = mp + (size_t)(i * WINO_ALPHA + j) * K * T;
            if (all_lanes) {
                col[i] = TVLOAD(0, ep);
            } else {
                float lanes[TL];
                for (int l = 0; l < TL; ++l) lanes[l] = (l >= lane_lo && l < lane_hi) ? ep[l] : 0.0f;
                col[i] = TVLOAD(0, lanes);
            }
        }
#define MCOL(i) col[i]
#define SCOL(i) s[i][j]
        WINO_AT(MCOL, SCOL)
#undef MCOL
#undef SCOL
    }
    const float b = has_bias ? LOAD(bias, bias_offset + k) : 0.0f;
    const int n = row / tiles_h, ty = row - n * tiles_h;
    const int oy0 = ty * WINO_M, ox0 = tx0 * WINO_M;
    __global STORAGE* yp = y + y_offset + ((size_t)n * K + k) * P * Q + ox0;
    // Output columns [x_lo, x_hi) of this group's span that exist and are its to write.
    const int x_lo = lane_lo * WINO_M, x_hi = min(lane_hi * WINO_M, Q - ox0);
    const bool whole_span = all_lanes && x_hi == TL * WINO_M;
#pragma unroll
    for (int i = 0; i < WINO_M; ++i) {
        if (oy0 + i >= P) break;
        tvec_t o[WINO_M];
#define SROW(j) s[i][j]
#define OROW(j) o[j]
        WINO_AT(SROW, OROW)
#undef SROW
#undef OROW
        tvec_t o_b[WINO_M], span[WINO_M];
#pragma unroll
        for (int j = 0; j < WINO_M; ++j) o_b[j] = o[j] + b;
        WINO_UNDEAL(o_b, span)
        __global STORAGE* rp = yp + (size_t)(oy0 + i) * Q;
        if (whole_span) {
#pragma unroll
            for (int q = 0; q < WINO_M; ++q) STOREN(TL, POST_OPS(span[q], LOADN(TL, q, rp)), q, rp);
        } else {
            // Whole vectors inside [x_lo, x_hi) stored as vectors, the rest
            // a float at a time (F(4x4) at 56 wide: 6 tiles, 3 whole
            // vectors; its output transform 0.44-0.50 -> 0.42-0.43 ms).
            float f[TL * WINO_M];
#pragma unroll
            for (int q = 0; q < WINO_M; ++q) TVSTORE(span[q], q, f);
#pragma unroll
            for (int q = 0; q < WINO_M; ++q) {
                const int q_lo = q * TL, q_hi = q_lo + TL;
                if (q_lo >= x_lo && q_hi <= x_hi) {
                    STOREN(TL, POST_OPS(span[q], LOADN(TL, q, rp)), q, rp);
                } else {
                    for (int xx = max(q_lo, x_lo); xx < min(q_hi, x_hi); ++xx) STORE(rp, xx, POST_OPS(f[xx], LOAD(rp, xx)));
                }
            }
        }
    }
}
