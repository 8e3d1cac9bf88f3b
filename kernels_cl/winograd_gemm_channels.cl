// Separate-transform Winograd's input and output transforms for the
// transposed multiply (M_e^T = V_e^T U_e^T), with CL channels in the lanes
// of a vector and one tile a work-item. Layouts: V[e][T][C], M
// [T][K / CL][e][CL] (a tile's group of CL channels one block of alpha^2
// vectors, the last group narrower where CL does not divide K: gemm.cl's
// C_GROUP; U in panels of K, written by winograd_gemm_weights with U_PANEL),
// so that each transform element of a tile is one vector load or store here
// and the GEMM engine runs row-major: T in its rows, K along its vectors,
// vector stores. Needs kernels_cl/winograd_gemm.cl (the prelude's macros) and
// kernels_cl/vector_lane.cl first.
//
// Why: the transposed multiply had read V[e][C][T] k-major and stored
// M[e][K][T] a scalar per lane; the tile-row transforms (winograd_gemm_rows.cl)
// fill their lanes with a row's tiles, 10 of 16 lanes on a 56-wide F(6x6)
// row. Here every lane is a channel, all of them busy, and every lane of a
// work-item sits at the same pixel, so padding and the ragged last tile are
// one test per tile. The cost moves to the ends: the input is gathered (a
// lane per channel, H*W floats apart; rows inside the image read whole and
// transposed in registers, gather_row16) and the output scattered (a scalar
// store per output, the fewest of any point where the [tile][channel] to
// [channel][pixel] transpose could happen: 36 a tile with F(6x6), where the
// GEMM stored 64). Measured on VGG-16's layers at N = 1 (PoCL 3.1, AVX-512,
// the layer's median of 15 rounds in one interleaved run, against the row transforms
// and the k-major multiply): conv3.2 (256 x 56 x 56) F(6x6) 4.09 -> 3.06 ms,
// F(4x4) 3.60 -> 3.14; conv1.2 (64 x 224 x 224) F(6x6) 8.10 -> 5.45; the
// 5x5 layers 20-44% faster at N = 1 and 32 (README).
//
// NDRange: input dim0 = ceil(C / CL) channel groups, dim1 = the pass's T
// tiles; output dim0 = T, dim1 = ceil(K / CL); the last group's lanes past
// the last channel are not stored (their loads are clamped to the last
// channel or 0). The input's consecutive work-items share a tile, so its
// input rows are read back to back (dim0 = tiles was 1.2-2x slower). The
// output's are neighbouring tiles of one group of channels, which complete
// each other's output lines while they are in L1 (each tile writes 4 or 6
// floats of a line): with M in channel groups (gemm.cl's C_GROUP) the
// output transform took F(6x6) 0.25 -> 0.20 ms at 28x28 (K 512) and 0.45
// -> 0.44 at 56x56 (K 256), F(4x4) 0.19 -> 0.17 and 0.43 -> 0.39, against
// channel groups along dim0 (medians of 147 runs, 7 alternating processes).
//
// Measured and not taken (PoCL 3.1, Zen 4, N = 1, F(6x6) and F(4x4) on
// VGG's 56x56 and 28x28 shapes; layer figures from the variants interleaved
// in one netcl-bench process, per-round ratios; "alone" from a harness
// timing one kernel): V and M tile-major ([T][e][C], a tile's transform
// elements contiguous, the GEMM taking lda = alpha^2 C): the layer within 3%
// of [e][T][C], this input transform alone 4-27% slower, the output 11%
// faster at 56x56 and 8% slower at 28x28. Each output work-item prefetching
// the M lines of the next tile: the output transform alone 15% (F(6x6)) and
// 40% (F(4x4)) faster, the layer -3% to +5%. 8 channels a work-item instead
// of 16 for F(6x6): the layer 1-9% faster at 28x28 and 14x14, -5% to +6%
// from 56x56 to 224x224, and for the 5x5 tiles (alpha 8, 9, 13) up to 9%
// slower, so no rule for it.
// Later (same machine and method, phases from OpenCL events, median of 21
// interleaved rounds; C 128 -> K 256 at 56x56 and 256 -> 512 at 28x28):
// each output row transposed in registers (the inverse of gather_row16) and
// stored as vstore4/vstore2 a channel (F(4x4): 16 stores a row for 64):
// F(4x4)'s output transform 0.43 -> 0.62 ms and 0.22 -> 0.29-0.32, F(6x6)'s
// unchanged. A^T M in blocks of 3 rows (no spill of the 6 x 8, M read
// twice): F(6x6) slower. V's and M's planes padded 16 floats apart (T K a
// multiple of 1024 puts a tile's every plane in one L1 set): no change.
// With its stores removed F(6x6)'s output transform took 0.28 / 0.16 ms
// against F(4x4)'s 0.22 / 0.09 while reading less of M (3.3 against 3.6 MB
// at 28x28): its excess there is in the loads and arithmetic, not stores.

#if CL == 16
typedef float16 cvec_t;
#define CVLOAD vload16
#define CVLOAD_HALF vload_half16
#define CVSTORE vstore16
#define HALF_BITS_T ushort16
#define HALF_BITS netcl_half_bits_from_float16
#elif CL == 8
typedef float8 cvec_t;
#define CVLOAD vload8
#define CVLOAD_HALF vload_half8
#define CVSTORE vstore8
#define HALF_BITS_T ushort8
#define HALF_BITS netcl_half_bits_from_float8
#elif CL == 4
typedef float4 cvec_t;
#define CVLOAD vload4
#define CVLOAD_HALF vload_half4
#define CVSTORE vstore4
#define HALF_BITS_T ushort4
#define HALF_BITS netcl_half_bits_from_float4
#else
#error "CL (channels a work-item) must be 4, 8 or 16"
#endif

// The first `lanes` channels from p (a float apart), the rest 0.
cvec_t load_channels(__global const float* p, const int lanes) {
    if (lanes == CL) return CVLOAD(0, p);
    float f[CL];
    for (int l = 0; l < CL; ++l) f[l] = l < lanes ? p[l] : 0.0f;
    return CVLOAD(0, f);
}

// The layer's bias for channels k0 .. k0 + lanes - 1 (the rest 0), in its
// storage type: x is widened to float32 before the input transform, but y
// and the bias are the caller's.
cvec_t load_bias_channels(__global const STORAGE* p, const int lanes) {
#ifdef STORAGE_HALF
    float f[CL];
    for (int l = 0; l < CL; ++l) f[l] = l < lanes ? LOAD(p, l) : 0.0f;
    return CVLOAD(0, f);
#else
    return load_channels(p, lanes);
#endif
}

// The first `lanes` lanes of v to p (a float apart).
void store_channels(const cvec_t v, __global float* p, const int lanes) {
    if (lanes == CL) {
        CVSTORE(v, 0, p);
        return;
    }
    float f[CL];
    CVSTORE(v, 0, f);
    for (int l = 0; l < lanes; ++l) p[l] = f[l];
}

// One input pixel's CL channels, lane l at p[lane_at[l]]. A half input is
// gathered as bits and converted as one vector (vload_halfN: F16C's
// vcvtph2ps on PoCL), not a lane at a time in integer arithmetic, so the
// transform reads the caller's half x where it had read a float32 copy
// made in a pass of its own (kernels_cl/widen.cl).
cvec_t gather_channels(__global const X_TYPE* p, const size_t lane_at[CL]) {
#ifdef X_HALF
    ushort bits[CL];
#pragma unroll
    for (int l = 0; l < CL; ++l) bits[l] = ((__global const ushort*)p)[lane_at[l]];
    return CVLOAD_HALF(0, (const __private half*)bits);
#else
    float f[CL];
#pragma unroll
    for (int l = 0; l < CL; ++l) f[l] = p[lane_at[l]];
    return CVLOAD(0, f);
#endif
}

#if CL == 16 && WINO_TILE <= 8
// Pixels ix .. ix + 7 of one input row, for 16 channels a plane apart,
// transposed so that out[j] holds the 16 channels' pixel ix + j: a row of
// each channel is one 8-float load (vload_half8 in half), and three rounds
// of two-vector shuffles move pixel j of every channel into one vector (the
// scalar gather below reads 16 floats one by one for each of the tile's
// pixels).
void gather_row16(__global const X_TYPE* p, const size_t plane, float16 out[8]) {
    float16 z[8];  // channels 2c and 2c + 1, pixels 0..7 each
#pragma unroll
    for (int c = 0; c < 8; ++c)
        z[c] = (float16)(LOADN_AS(X_TYPE, 8, 0, p + (size_t)(2 * c) * plane),
                         LOADN_AS(X_TYPE, 8, 0, p + (size_t)(2 * c + 1) * plane));
    float16 a[4], b[4];  // channels 4q .. 4q + 3: pixels 0..3 (a), 4..7 (b), 4 lanes a pixel
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const float16 u = z[2 * q], w = z[2 * q + 1];
        a[q] = (float16)(u.s0, u.s8, w.s0, w.s8, u.s1, u.s9, w.s1, w.s9, u.s2, u.sa, w.s2, w.sa, u.s3, u.sb, w.s3, w.sb);
        b[q] = (float16)(u.s4, u.sc, w.s4, w.sc, u.s5, u.sd, w.s5, w.sd, u.s6, u.se, w.s6, w.se, u.s7, u.sf, w.s7, w.sf);
    }
    // Channels 0..7 (lo) and 8..15 (hi) of two pixels each, 8 lanes a pixel.
    const float16 lo01 = (float16)(a[0].s0123, a[1].s0123, a[0].s4567, a[1].s4567);
    const float16 lo23 = (float16)(a[0].s89ab, a[1].s89ab, a[0].scdef, a[1].scdef);
    const float16 hi01 = (float16)(a[2].s0123, a[3].s0123, a[2].s4567, a[3].s4567);
    const float16 hi23 = (float16)(a[2].s89ab, a[3].s89ab, a[2].scdef, a[3].scdef);
    const float16 lo45 = (float16)(b[0].s0123, b[1].s0123, b[0].s4567, b[1].s4567);
    const float16 lo67 = (float16)(b[0].s89ab, b[1].s89ab, b[0].scdef, b[1].scdef);
    const float16 hi45 = (float16)(b[2].s0123, b[3].s0123, b[2].s4567, b[3].s4567);
    const float16 hi67 = (float16)(b[2].s89ab, b[3].s89ab, b[2].scdef, b[3].scdef);
    out[0] = (float16)(lo01.lo, hi01.lo);
    out[1] = (float16)(lo01.hi, hi01.hi);
    out[2] = (float16)(lo23.lo, hi23.lo);
    out[3] = (float16)(lo23.hi, hi23.hi);
    out[4] = (float16)(lo45.lo, hi45.lo);
    out[5] = (float16)(lo45.hi, hi45.hi);
    out[6] = (float16)(lo67.lo, hi67.lo);
    out[7] = (float16)(lo67.hi, hi67.hi);
}
#endif

// V = B^T d B for tile tile0 + t of channels c0 .. c0 + CL - 1.
__kernel void winograd_gemm_input_channels(__global const X_TYPE* restrict x, const ulong x_offset,
                                           __global float* restrict v, const ulong v_offset, const int C, const int H,
                                           const int W, const int pad_top, const int pad_left, const int tiles_w,
                                           const int tiles_per_image, const int tile0, const int T) {
    const int c0 = (int)get_global_id(0) * CL, t = (int)get_global_id(1);
    if (t >= T || c0 >= C) return;
    const int lanes = min(CL, C - c0);
    int n, ty, tx;
    tile_position(tile0 + t, tiles_per_image, tiles_w, &n, &ty, &tx);
    const int iy0 = ty * TILE_STEP - pad_top, ix0 = tx * TILE_STEP - pad_left;
    const size_t plane = (size_t)H * W;
    __global const X_TYPE* xp = x + x_offset + ((size_t)n * C + c0) * plane;
    // Lane l reads channel c0 + l, clamped to the last one (never stored).
    size_t lane_at[CL];
#pragma unroll
    for (int l = 0; l < CL; ++l) lane_at[l] = (size_t)min(l, lanes - 1) * plane;

    cvec_t d[WINO_TILE][WINO_TILE];
#if CL == 16 && WINO_TILE <= 8
    // Every channel and all 8 pixels of each row inside the image: rows read
    // whole and transposed (rows above or below it are zeros).
    if (lanes == CL && ix0 >= 0 && ix0 + 8 <= W) {
#pragma unroll
        for (int i = 0; i < WINO_TILE; ++i) {
            const int iy = iy0 + i;
            if (iy >= 0 && iy < H) {
                float16 row[8];
                gather_row16(xp + iy * W + ix0, plane, row);
#pragma unroll
                for (int j = 0; j < WINO_TILE; ++j) d[i][j] = row[j];
            } else {
#pragma unroll
                for (int j = 0; j < WINO_TILE; ++j) d[i][j] = (cvec_t)(0.0f);
            }
        }
    } else
#endif
#pragma unroll
    for (int i = 0; i < WINO_TILE; ++i) {
        const int iy = iy0 + i;
        const bool row_in = iy >= 0 && iy < H;
#pragma unroll
        for (int j = 0; j < WINO_TILE; ++j) {
            const int ix = ix0 + j;
            if (row_in && ix >= 0 && ix < W) {
                d[i][j] = gather_channels(xp + iy * W + ix, lane_at);
            } else {
                d[i][j] = (cvec_t)(0.0f);
            }
        }
    }
    cvec_t s[WINO_ALPHA][WINO_TILE];
#define DCOL(i) d[i][j]
#define SCOL(i) s[i][j]
#pragma unroll
    for (int j = 0; j < WINO_TILE; ++j) { WINO_BT(DCOL, SCOL) }
#undef DCOL
#undef SCOL
    __global float* vp = v + v_offset + (size_t)t * C + c0;
#define SROW(j) s[i][j]
#define VROW(j) out[j]
#pragma unroll
    for (int i = 0; i < WINO_ALPHA; ++i) {
        cvec_t out[WINO_ALPHA];
        WINO_BT(SROW, VROW)
#pragma unroll
        for (int j = 0; j < WINO_ALPHA; ++j) store_channels(out[j], vp + (size_t)(i * WINO_ALPHA + j) * T * C, lanes);
    }
#undef SROW
#undef VROW
}

// Y = A^T M A (+ bias) for tile tile0 + t of output channels k0 .. k0 + CL - 1;
// outputs past P or Q are not written.
__kernel void winograd_gemm_output_channels(__global const float* restrict m, const ulong m_offset,
                                            __global STORAGE* restrict y, const ulong y_offset,
                                            __global const STORAGE* restrict bias, const ulong bias_offset,
                                            const int has_bias, const int K, const int P, const int Q,
                                            const int tiles_w, const int tiles_per_image, const int tile0,
                                            const int T) {
    const int k0 = (int)get_global_id(1) * CL, t = (int)get_global_id(0);
    if (t >= T || k0 >= K) return;
    const int lanes = min(CL, K - k0);
    // This tile's group of channels: alpha^2 vectors of `lanes` floats, one after another.
    __global const float* mp = m + m_offset + (size_t)t * WINO_ALPHA * WINO_ALPHA * K + (size_t)k0 * WINO_ALPHA * WINO_ALPHA;
    cvec_t s[WINO_M][WINO_ALPHA];
    // A whole group of channels reads M with plain vector loads, tested once
    // for the tile, not once a load (each load_channels a branch of its own).
#define SCOL(i) s[i][j]
    if (lanes == CL) {
#define MCOL(i) CVLOAD((i) * WINO_ALPHA + j, mp)
#pragma unroll
        for (int j = 0; j < WINO_ALPHA; ++j) { WINO_AT(MCOL, SCOL) }
#undef MCOL
    } else {
#define MCOL(i) load_channels(mp + ((i) * WINO_ALPHA + j) * lanes, lanes)
#pragma unroll
        for (int j = 0; j < WINO_ALPHA; ++j) { WINO_AT(MCOL, SCOL) }
#undef MCOL
    }
#undef SCOL
    const cvec_t b = has_bias ? load_bias_channels(bias + bias_offset + k0, lanes) : (cvec_t)(0.0f);
    int n, ty, tx;
    tile_position(tile0 + t, tiles_per_image, tiles_w, &n, &ty, &tx);
    const int oy0 = ty * WINO_M, ox0 = tx * WINO_M;
    const size_t plane = (size_t)P * Q;
    __global STORAGE* yp = y + y_offset + ((size_t)n * K + k0) * plane + (size_t)oy0 * Q + ox0;
    const int rows = min(WINO_M, P - oy0), cols = min(WINO_M, Q - ox0);
    // Row by row, each stored as it is made (F(6x6)'s whole 6 x 6 held at
    // once spilled: conv3.2's output transform 0.43 -> 0.23-0.26 ms). Rows
    // past P are skipped by a test, not a break: a break kept the loop from
    // unrolling (PoCL warned), s was indexed at run time and lived in memory.
#define SROW(j) s[i][j]
#define OROW(j) o[j]
#pragma unroll
    for (int i = 0; i < WINO_M; ++i) {
        cvec_t o[WINO_M];
        WINO_AT(SROW, OROW)
        __global STORAGE* rp = yp + (size_t)i * Q;
        if (i >= rows) {
            // past the image's last row
        } else if (cols == WINO_M && lanes == CL) {
#if defined(STORAGE_HALF) && !defined(POST_SUM)
            // Half: a column's CL channels rounded in one vector conversion,
            // then stored a lane each (a scalar rounding per output is what
            // held the implicit GEMM's stem at 0.58x of float32; without
            // POST_SUM, POST_OPS is ACTIVATE).
            HALF_BITS_T bits[WINO_M];
#pragma unroll
            for (int j = 0; j < WINO_M; ++j) bits[j] = HALF_BITS(ACTIVATE(o[j] + b));
#pragma unroll
            for (int l = 0; l < CL; ++l)
#pragma unroll
                for (int j = 0; j < WINO_M; ++j) ((__global ushort*)rp)[l * plane + j] = LANE_OF(CL, bits[j], l);
#else
#pragma unroll
            for (int l = 0; l < CL; ++l)
#pragma unroll
                for (int j = 0; j < WINO_M; ++j)
                    STORE(rp, l * plane + j, POST_OPS(LANE_OF(CL, o[j] + b, l), LOAD(rp, l * plane + j)));
#endif
        } else {
#pragma unroll
            for (int l = 0; l < CL; ++l)
#pragma unroll
                for (int j = 0; j < WINO_M; ++j)
                    if (l < lanes && j < cols) STORE(rp, l * plane + j, POST_OPS(LANE_OF(CL, o[j] + b, l), LOAD(rp, l * plane + j)));
        }
    }
#undef SROW
#undef OROW
}
