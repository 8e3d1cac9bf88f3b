// Winograd F(m x m, r x r) with separate transforms (Lavin & Gray eq. 13,
// Nervana's "FX" approach): the input transform writes V for every tile
// once, one GEMM per transform element e multiplies U_e[K x C] by
// V_e[C x T] (kernels_cl/gemm.cl, batched over e), and the output transform
// reads M_e[K x T] back. Unlike the fused kernel, each input tile is
// transformed once, not once per K block, and the multiply runs on the GEMM
// engine's register tiles (measured: 58-67 GFLOPS of GEMM on the VGG
// shapes on PoCL, against a fused phase 2 that stalls on its barriers).
//
// Layouts, chosen for the GEMM (rows of A are sequential streams, B's
// columns are contiguous): U[e][K][C], V[e][C][T], M[e][K][T], T = the tiles
// of one pass (tile = n x tiles_h x tiles_w, numbered from tile0). With
// U_PANEL (the GEMM's NR), U[e][K / U_PANEL][C][U_PANEL], K padded with zeros
// to whole panels: the GEMM computes M_e^T = V_e^T U_e^T (K along its
// vectors, U streamed a panel at a time: kernels_cl/gemm.cl's B_PANEL) on
// V[e][T][C] and M in groups of CL channels, [T][K / CL][e][CL] (gemm.cl's
// C_GROUP), which the transforms of kernels_cl/winograd_gemm_channels.cl
// write and read.
// Needs the prelude of ops/winograd/WinogradSource.cpp.

// X_TYPE: the input's type, the layer's (STORAGE) unless the host widened a
// float16 input to float32 first (kernels_cl/widen.cl; a lone vload_half is
// ~10 integer operations on PoCL, and each input element feeds up to four
// overlapping tiles). X_HALF: the input transform reads half itself (the
// channel-lane one converts a whole vector of channels at once:
// kernels_cl/winograd_gemm_channels.cl).
#ifndef X_TYPE
#define X_TYPE STORAGE
#ifdef STORAGE_HALF
#define X_HALF
#endif
#endif
// TILE_STEP: how far apart the input tiles of winograd_gemm_channels.cl's
// input transform start, WINO_M unless the program says otherwise.
// Winograd's weight gradient (kernels_cl/winograd_wgrad.cl) transforms x
// with it in tiles that start a dy tile (WINO_R) apart: F(3x3,2x2)'s 4x4
// tiles overlap by 2 (Lavin & Gray section 4.2).
#ifndef TILE_STEP
#define TILE_STEP WINO_M
#endif
// U_TYPE: U's element type, float, or half for a float16 layer whose profile
// keeps U in half (ops/winograd_gemm/WinogradGemmConfig.hpp, half_u): the
// multiply streams U from memory once per pass, and half halves that stream.
// Rounded once, at set_weights; the GEMM widens it (kernels_cl/gemm.cl's
// A_TYPE or B_TYPE).
#ifndef U_TYPE
#define U_TYPE float
#endif
#define A2 (WINO_ALPHA * WINO_ALPHA)
// FILTERS_ROTATED: backward data's forward problem (ops/as_forward/) given
// the layer's own filters, read in place: its filter (k, c) is the layer's
// (c, k), the taps reversed (rotated 180° on every axis), where a rotated
// copy cost a pass over the filters every training step.
#ifdef FILTERS_ROTATED
#define FILTER_AT(k, c, C, K) ((size_t)(c) * (K) + (k))
#define FILTER_TAP(i, taps) ((taps) - 1 - (i))
#else
#define FILTER_AT(k, c, C, K) ((size_t)(k) * (C) + (c))
#define FILTER_TAP(i, taps) (i)
#endif

#ifdef DEPTH
// 3-D, F(m x m x m, r x r x r) (Lan et al.): the same three kernels on
// alpha^3 transform elements, e = (z * alpha + y) * alpha + x, each
// transform the 1-D one along every axis in turn, with the plain layouts
// U[e][K][C], V[e][C][T], M[e][K][T] (no U_PANEL: the transposed multiply
// is 2-D). Tiles are numbered image by image, then plane, row, column.
#define A3 (WINO_ALPHA * WINO_ALPHA * WINO_ALPHA)

void tile_position_3d(const int tile, const int tiles_per_image, const int tiles_h, const int tiles_w, int* n,
                      int* tz, int* ty, int* tx) {
    *n = tile / tiles_per_image;
    int rest = tile - *n * tiles_per_image;
    *tz = rest / (tiles_h * tiles_w);
    rest -= *tz * tiles_h * tiles_w;
    *ty = rest / tiles_w;
    *tx = rest - *ty * tiles_w;
}

// U = g transformed by G along each axis, into [e][K][C], once per
// set_weights. NDRange: dim0 = C, dim1 = K.
__kernel void winograd_gemm_weights(__global const STORAGE* restrict w, const ulong w_offset, __global U_TYPE* restrict u,
                                    const int C, const int K) {
    const int c = (int)get_global_id(0), k = (int)get_global_id(1);
    if (c >= C || k >= K) return;
    w += w_offset + FILTER_AT(k, c, C, K) * (WINO_R * WINO_R * WINO_R);
    float g[WINO_R][WINO_R][WINO_R];
    float t1[WINO_R][WINO_R][WINO_ALPHA];
    float t2[WINO_R][WINO_ALPHA][WINO_ALPHA];
    float v[WINO_ALPHA][WINO_ALPHA][WINO_ALPHA];
#pragma unroll
    for (int z = 0; z < WINO_R; ++z)
#pragma unroll
        for (int y = 0; y < WINO_R; ++y)
#pragma unroll
            for (int x = 0; x < WINO_R; ++x) g[z][y][x] = LOAD(w, FILTER_TAP((z * WINO_R + y) * WINO_R + x, WINO_R * WINO_R * WINO_R));
#define IN_X(i) g[z][y][i]
#define OUT_X(i) t1[z][y][i]
#pragma unroll
    for (int z = 0; z < WINO_R; ++z)
#pragma unroll
        for (int y = 0; y < WINO_R; ++y) { WINO_G(IN_X, OUT_X) }
#define IN_Y(i) t1[z][i][x]
#define OUT_Y(i) t2[z][i][x]
#pragma unroll
    for (int z = 0; z < WINO_R; ++z)
#pragma unroll
        for (int x = 0; x < WINO_ALPHA; ++x) { WINO_G(IN_Y, OUT_Y) }
#define IN_Z(i) t2[i][y][x]
#define OUT_Z(i) v[i][y][x]
#pragma unroll
    for (int y = 0; y < WINO_ALPHA; ++y)
#pragma unroll
        for (int x = 0; x < WINO_ALPHA; ++x) { WINO_G(IN_Z, OUT_Z) }
#undef IN_X
#undef OUT_X
#undef IN_Y
#undef OUT_Y
#undef IN_Z
#undef OUT_Z
#pragma unroll
    for (int e = 0; e < A3; ++e) {
        STORE_AS(U_TYPE, u, ((size_t)e * K + k) * C + c, v[e / A2][e / WINO_ALPHA % WINO_ALPHA][e % WINO_ALPHA]);
    }
}

// The transforms take TL3 (8) consecutive tiles of the pass a work-item,
// one per lane of a float8: the arithmetic of the 216-element F(4x4x4)
// transforms in vectors. One tile a work-item (as 2-D's one-tile kernels)
// ran v3d's conv2 (C = 32, K = 64, 784 tiles, 2 Zen 3 cores) input transform
// in 30 ms and its output transform in 35, against 14 for the multiply. A
// lane's tile is found on its own (the 8 may wrap rows, planes and images),
// its inputs gathered and its outputs scattered; V and M, [e][C][T] and
// [e][K][T], are read and written 8 tiles at once. The loops are left
// rolled: unrolled, PoCL took 3 minutes to build F(4x4x4)'s transforms.
#define TL3 8
#define VEC float8

// The lane's tile (tiles past the pass's last repeat it: computed, never stored).
void lane_tile(const int tile0, const int t, const int T, const int tiles_per_image, const int tiles_h,
               const int tiles_w, int* n, int* tz, int* ty, int* tx) {
    tile_position_3d(tile0 + min(t, T - 1), tiles_per_image, tiles_h, tiles_w, n, tz, ty, tx);
}

// V = d transformed by B^T along each axis for tiles tile0 .. tile0 + T - 1
// of every channel; loads outside the input (padding, ragged last tiles)
// read 0. NDRange: dim0 = ceil(T / TL3), dim1 = C.
//
// Where the 8 tiles are neighbours in one tile row and inside the image's
// width (most of them: v3d's conv2 has 14 tiles a row), a row of their
// input is one run of 4 * 7 + 6 floats read without clamps; otherwise each
// lane gathers its own, clamped and zeroed outside the input.
__kernel void winograd_gemm_input(__global const X_TYPE* restrict x, const ulong x_offset, __global float* restrict v,
                                  const ulong v_offset, const int C, const int H, const int W, const int pad_top,
                                  const int pad_left, const int tiles_w, const int tiles_per_image, const int tile0,
                                  const int T, const int D, const int pad_front, const int tiles_h) {
    const int t0 = (int)get_global_id(0) * TL3, c = (int)get_global_id(1);
    if (t0 >= T || c >= C) return;
    int lane_base[TL3], lane_z[TL3], lane_y[TL3], lane_x[TL3];
    for (int l = 0; l < TL3; ++l) {
        int n, tz, ty, tx;
        lane_tile(tile0, t0 + l, T, tiles_per_image, tiles_h, tiles_w, &n, &tz, &ty, &tx);
        lane_base[l] = (n * C + c) * D;  // in planes
        lane_z[l] = tz * WINO_M - pad_front, lane_y[l] = ty * WINO_M - pad_top, lane_x[l] = tx * WINO_M - pad_left;
    }
    // One run per input row: the same image, plane and row, consecutive tiles, inside the width.
    const bool run = lane_base[TL3 - 1] == lane_base[0] && lane_z[TL3 - 1] == lane_z[0] &&
                     lane_y[TL3 - 1] == lane_y[0] && lane_x[TL3 - 1] == lane_x[0] + (TL3 - 1) * WINO_M &&
                     lane_x[0] >= 0 && lane_x[0] + (TL3 - 1) * WINO_M + WINO_TILE <= W;
    __global const X_TYPE* xc = x + x_offset;
    VEC s1[WINO_TILE][WINO_TILE][WINO_ALPHA];
    VEC row_in[WINO_TILE];
#define IN_X(i) row_in[i]
#define OUT_X(i) s1[z][y][i]
    for (int z = 0; z < WINO_TILE; ++z)
        for (int y = 0; y < WINO_TILE; ++y) {
            if (run) {
                const int iz = lane_z[0] + z, iy = lane_y[0] + y;
                if (iz >= 0 && iz < D && iy >= 0 && iy < H) {
                    __global const X_TYPE* r = xc + ((size_t)(lane_base[0] + iz) * H + iy) * W + lane_x[0];
                    float seg[(TL3 - 1) * WINO_M + WINO_TILE];
                    for (int i = 0; i < (TL3 - 1) * WINO_M + WINO_TILE; ++i) seg[i] = LOAD_AS(X_TYPE, r, i);
                    for (int j = 0; j < WINO_TILE; ++j)
                        row_in[j] = (VEC)(seg[j], seg[WINO_M + j], seg[2 * WINO_M + j], seg[3 * WINO_M + j],
                                          seg[4 * WINO_M + j], seg[5 * WINO_M + j], seg[6 * WINO_M + j],
                                          seg[7 * WINO_M + j]);
                } else {
                    for (int j = 0; j < WINO_TILE; ++j) row_in[j] = (VEC)(0.0f);
                }
            } else {
                float lanes[WINO_TILE * TL3];
                for (int l = 0; l < TL3; ++l) {
                    const int iz = lane_z[l] + z, iy = lane_y[l] + y;
                    const bool in_row = iz >= 0 && iz < D && iy >= 0 && iy < H;
                    // size_t: an offset into the whole batch (past 2^31 floats for large clips).
                    const size_t row = ((size_t)(lane_base[l] + clamp(iz, 0, D - 1)) * H + clamp(iy, 0, H - 1)) * W;
                    for (int j = 0; j < WINO_TILE; ++j) {
                        const int ix = lane_x[l] + j;
                        const float value = LOAD_AS(X_TYPE, xc, row + clamp(ix, 0, W - 1));
                        lanes[j * TL3 + l] = (in_row && ix >= 0 && ix < W) ? value : 0.0f;
                    }
                }
                for (int j = 0; j < WINO_TILE; ++j) row_in[j] = vload8(j, lanes);
            }
            WINO_BT(IN_X, OUT_X)
        }
    VEC s2[WINO_TILE][WINO_ALPHA][WINO_ALPHA];
#define IN_Y(i) s1[z][i][xx]
#define OUT_Y(i) s2[z][i][xx]
    for (int z = 0; z < WINO_TILE; ++z)
        for (int xx = 0; xx < WINO_ALPHA; ++xx) { WINO_BT(IN_Y, OUT_Y) }
    const bool whole = t0 + TL3 <= T;
    __global float* vc = v + v_offset + (size_t)c * T + t0;
    const size_t e_stride = (size_t)C * T;
    VEC out[WINO_ALPHA];
#define IN_Z(i) s2[i][y][xx]
#define OUT_Z(i) out[i]
    for (int y = 0; y < WINO_ALPHA; ++y)
        for (int xx = 0; xx < WINO_ALPHA; ++xx) {
            WINO_BT(IN_Z, OUT_Z)
            for (int i = 0; i < WINO_ALPHA; ++i) {
                __global float* ve = vc + (size_t)((i * WINO_ALPHA + y) * WINO_ALPHA + xx) * e_stride;
                if (whole) {
                    vstore8(out[i], 0, ve);
                } else {
                    float lanes[TL3];
                    vstore8(out[i], 0, lanes);
                    for (int l = 0; l < T - t0; ++l) ve[l] = lanes[l];
                }
            }
        }
#undef IN_X
#undef OUT_X
#undef IN_Y
#undef OUT_Y
#undef IN_Z
#undef OUT_Z
}

// Y = M transformed by A^T along each axis (+ bias, the output stage) for
// tiles tile0 .. tile0 + T - 1 of every output channel; outputs past O, P
// or Q are not written. NDRange: dim0 = ceil(T / TL3), dim1 = K.
__kernel void winograd_gemm_output(__global const float* restrict m, const ulong m_offset, __global STORAGE* restrict y,
                                   const ulong y_offset, __global const STORAGE* restrict bias, const ulong bias_offset,
                                   const int has_bias, const int K, const int P, const int Q, const int tiles_w,
                                   const int tiles_per_image, const int tile0, const int T, const int O,
                                   const int tiles_h) {
    const int t0 = (int)get_global_id(0) * TL3, k = (int)get_global_id(1);
    if (t0 >= T || k >= K) return;
    const bool whole = t0 + TL3 <= T;
    __global const float* mk = m + m_offset + (size_t)k * T + t0;
    const size_t e_stride = (size_t)K * T;
    VEC s1[WINO_M][WINO_ALPHA][WINO_ALPHA];
    VEC s2[WINO_M][WINO_M][WINO_ALPHA];
    float o[WINO_M * WINO_M * WINO_M * TL3];
    VEC in[WINO_ALPHA];
#define IN_Z(i) in[i]
#define OUT_Z(i) s1[i][yy][xx]
    for (int yy = 0; yy < WINO_ALPHA; ++yy)
        for (int xx = 0; xx < WINO_ALPHA; ++xx) {
            for (int i = 0; i < WINO_ALPHA; ++i) {
                __global const float* me = mk + (size_t)((i * WINO_ALPHA + yy) * WINO_ALPHA + xx) * e_stride;
                if (whole) {
                    in[i] = vload8(0, me);
                } else {
                    float lanes[TL3];
                    for (int l = 0; l < TL3; ++l) lanes[l] = me[min(l, T - 1 - t0)];
                    in[i] = vload8(0, lanes);
                }
            }
            WINO_AT(IN_Z, OUT_Z)
        }
#define IN_Y(i) s1[z][i][xx]
#define OUT_Y(i) s2[z][i][xx]
    for (int z = 0; z < WINO_M; ++z)
        for (int xx = 0; xx < WINO_ALPHA; ++xx) { WINO_AT(IN_Y, OUT_Y) }
    VEC row_out[WINO_M];
#define IN_X(i) s2[z][yy][i]
#define OUT_X(i) row_out[i]
    for (int z = 0; z < WINO_M; ++z)
        for (int yy = 0; yy < WINO_M; ++yy) {
            WINO_AT(IN_X, OUT_X)
            for (int j = 0; j < WINO_M; ++j) vstore8(row_out[j], (z * WINO_M + yy) * WINO_M + j, o);
        }
#undef IN_Z
#undef OUT_Z
#undef IN_Y
#undef OUT_Y
#undef IN_X
#undef OUT_X
    const float bias_k = has_bias ? LOAD(bias, bias_offset + k) : 0.0f;
    for (int l = 0; l < min(TL3, T - t0); ++l) {
        int n, tz, ty, tx;
        lane_tile(tile0, t0 + l, T, tiles_per_image, tiles_h, tiles_w, &n, &tz, &ty, &tx);
        const int oz0 = tz * WINO_M, oy0 = ty * WINO_M, ox0 = tx * WINO_M;
        __global STORAGE* yp = y + y_offset + ((size_t)n * K + k) * O * P * Q;
        for (int z = 0; z < WINO_M; ++z) {
            if (oz0 + z >= O) break;
            for (int i = 0; i < WINO_M; ++i) {
                if (oy0 + i >= P) break;
                __global STORAGE* row = yp + ((size_t)(oz0 + z) * P + oy0 + i) * Q + ox0;
                for (int j = 0; j < WINO_M; ++j)
                    if (ox0 + j < Q) STORE(row, j, POST_OPS(o[((z * WINO_M + i) * WINO_M + j) * TL3 + l] + bias_k, LOAD(row, j)));
            }
        }
    }
}

#else  // 2-D

// Where tile `tile` of the layer lies: image n, tile row ty, tile column tx
// (tiles numbered image by image, row by row).
void tile_position(const int tile, const int tiles_per_image, const int tiles_w, int* n, int* ty, int* tx) {
    *n = tile / tiles_per_image;
    const int rest = tile - *n * tiles_per_image;
    *ty = rest / tiles_w;
    *tx = rest - *ty * tiles_w;
}

// U = G g G^T into [e][K][C] (or panels, U_e then U_PLANE_PAD elements
// apart more: ops/winograd_gemm/WinogradGemmConfig.hpp's u_plane), once per set_weights, which a
// training step calls every step. NDRange: dim0 runs along U's contiguous
// axis, so that a work-group's stores for each e fill whole cache lines: C
// for [e][K][C], K for panels (dim1 the other; with U_PANEL, K padded to
// whole panels, the padding written as zeros: the GEMM multiplies it into
// columns it never stores, and zeros keep a fresh buffer's NaNs or denormals
// out of those FMAs).
__kernel void winograd_gemm_weights(__global const STORAGE* restrict w, const ulong w_offset, __global U_TYPE* restrict u,
                                    const int C, const int K) {
#ifdef U_PANEL
    const int k = (int)get_global_id(0), c = (int)get_global_id(1);
#else
    const int c = (int)get_global_id(0), k = (int)get_global_id(1);
#endif
#ifdef U_PANEL
    const int panels = (K + U_PANEL - 1) / U_PANEL;
    if (c >= C || k >= panels * U_PANEL) return;
    __global U_TYPE* up = u + ((size_t)(k / U_PANEL) * C + c) * U_PANEL + k % U_PANEL;
    const size_t e_stride = (size_t)panels * C * U_PANEL + U_PLANE_PAD;
    if (k >= K) {
#pragma unroll
        for (int e = 0; e < A2; ++e) STORE_AS(U_TYPE, up, e * e_stride, 0.0f);
        return;
    }
#else
    if (c >= C || k >= K) return;
#endif
    w += w_offset + FILTER_AT(k, c, C, K) * (WINO_R * WINO_R);
    float g[WINO_R][WINO_R];
    float t[WINO_ALPHA][WINO_R];
    float v[WINO_ALPHA][WINO_ALPHA];
#pragma unroll
    for (int i = 0; i < WINO_R; ++i)
#pragma unroll
        for (int j = 0; j < WINO_R; ++j) g[i][j] = LOAD(w, FILTER_TAP(i * WINO_R + j, WINO_R * WINO_R));
#define GCOL(i) g[i][j]
#define TCOL(i) t[i][j]
#pragma unroll
    for (int j = 0; j < WINO_R; ++j) { WINO_G(GCOL, TCOL) }
#define TROW(j) t[i][j]
#define VROW(j) v[i][j]
#pragma unroll
    for (int i = 0; i < WINO_ALPHA; ++i) { WINO_G(TROW, VROW) }
#undef GCOL
#undef TCOL
#undef TROW
#undef VROW
#pragma unroll
    for (int e = 0; e < A2; ++e) {
#ifdef U_PANEL
        STORE_AS(U_TYPE, up, e * e_stride, v[e / WINO_ALPHA][e % WINO_ALPHA]);
#else
        STORE_AS(U_TYPE, u, ((size_t)e * K + k) * C + c, v[e / WINO_ALPHA][e % WINO_ALPHA]);
#endif
    }
}

// V = B^T d B for tiles tile0 .. tile0 + T - 1 of every channel. Loads are
// clamped into the image and zeroed outside it (padding, the ragged last
// tile). NDRange: dim0 = T (contiguous stores along t), dim1 = C.
__kernel void winograd_gemm_input(__global const X_TYPE* restrict x, const ulong x_offset, __global float* restrict v,
                                  const ulong v_offset, const int C, const int H, const int W, const int pad_top,
                                  const int pad_left, const int tiles_w, const int tiles_per_image, const int tile0,
                                  const int T) {
    const int t = (int)get_global_id(0), c = (int)get_global_id(1);
    if (t >= T || c >= C) return;
    int n, ty, tx;
    tile_position(tile0 + t, tiles_per_image, tiles_w, &n, &ty, &tx);
    const int iy0 = ty * WINO_M - pad_top, ix0 = tx * WINO_M - pad_left;
    __global const X_TYPE* xp = x + x_offset + ((size_t)n * C + c) * H * W;
    float d[WINO_TILE][WINO_TILE];
#pragma unroll
    for (int i = 0; i < WINO_TILE; ++i) {
        const int iy = iy0 + i;
        const bool row_in = iy >= 0 && iy < H;
        const int row = clamp(iy, 0, H - 1) * W;
#pragma unroll
        for (int j = 0; j < WINO_TILE; ++j) {
            const int ix = ix0 + j;
            const float value = LOAD_AS(X_TYPE, xp, row + clamp(ix, 0, W - 1));
            d[i][j] = (row_in && ix >= 0 && ix < W) ? value : 0.0f;
        }
    }
    float s[WINO_ALPHA][WINO_TILE];
#define DCOL(i) d[i][j]
#define SCOL(i) s[i][j]
#pragma unroll
    for (int j = 0; j < WINO_TILE; ++j) { WINO_BT(DCOL, SCOL) }
#define SROW(j) s[i][j]
#define VOUT(j) v[v_offset + ((size_t)(i * WINO_ALPHA + (j)) * C + c) * T + t]
#pragma unroll
    for (int i = 0; i < WINO_ALPHA; ++i) { WINO_BT(SROW, VOUT) }
#undef DCOL
#undef SCOL
#undef SROW
#undef VOUT
}

// Y = A^T M A (+ bias) for tiles tile0 .. tile0 + T - 1 of every output
// channel; outputs past P or Q are not written. NDRange: dim0 = T, dim1 = K.
__kernel void winograd_gemm_output(__global const float* restrict m, const ulong m_offset, __global STORAGE* restrict y,
                                   const ulong y_offset, __global const STORAGE* restrict bias, const ulong bias_offset,
                                   const int has_bias, const int K, const int P, const int Q, const int tiles_w,
                                   const int tiles_per_image, const int tile0, const int T) {
    const int t = (int)get_global_id(0), k = (int)get_global_id(1);
    if (t >= T || k >= K) return;
    float s[WINO_M][WINO_ALPHA];
    float o[WINO_M][WINO_M];
#define MCOL(i) m[m_offset + ((size_t)((i) * WINO_ALPHA + j) * K + k) * T + t]
#define SCOL(i) s[i][j]
#pragma unroll
    for (int j = 0; j < WINO_ALPHA; ++j) { WINO_AT(MCOL, SCOL) }
#define SROW(j) s[i][j]
#define OROW(j) o[i][j]
#pragma unroll
    for (int i = 0; i < WINO_M; ++i) { WINO_AT(SROW, OROW) }
#undef MCOL
#undef SCOL
#undef SROW
#undef OROW
    const float b = has_bias ? LOAD(bias, bias_offset + k) : 0.0f;
    int n, ty, tx;
    tile_position(tile0 + t, tiles_per_image, tiles_w, &n, &ty, &tx);
    const int oy0 = ty * WINO_M, ox0 = tx * WINO_M;
    __global STORAGE* yp = y + y_offset + ((size_t)n * K + k) * P * Q;
#pragma unroll
    for (int i = 0; i < WINO_M; ++i) {
        if (oy0 + i >= P) break;
#pragma unroll
        for (int j = 0; j < WINO_M; ++j)
            if (ox0 + j < Q) STORE(yp, (oy0 + i) * Q + ox0 + j, POST_OPS(o[i][j] + b, LOAD(yp, (oy0 + i) * Q + ox0 + j)));
    }
}

#endif  // DEPTH
