// Winograd's weight gradient (Lavin & Gray section 4.2): dw = F(R x S, P x Q)
// of x with dy, cut into F(m x m, r x r) pieces, m = R = S (the filter's
// taps are the outputs) and r the side of a dy tile. Piece t correlates dy's
// r x r tile t with the alpha x alpha tile of x that starts at the same
// place (the tiles overlap by alpha - r = m - 1), and the pieces of every
// tile and image add up to dw:
//
//   dw[k][c] = A^T [ sum over t of (G dy_t G^T) .* (B^T x_t B) ] A
//
// so the sum over t is a batched GEMM on netcl's engine (one per transform
// element e, reducing over the tiles), and A^T . A runs once per (k, c) at
// the end, not once per tile. The roles of forward's matrices move: dy is
// the "filter" (G), x the "data" (B^T), the filter's taps the "output"
// (A^T); ops/winograd/WinogradMatrices.hpp generates F(m, r) with m and r
// swapped from forward's (F(3,2) from F(2,3)'s points).
//
// Per pass of T tiles (tile0 ..): x's transform is winograd_gemm_channels.cl's
// winograd_gemm_input_channels built with TILE_STEP = WINO_R, into V[e][T][C]
// (a float16 x is widened first, kernels_cl/widen.cl); dy's is
// winograd_wgrad_dy below, into D[e][K][T]; the GEMM adds D_e V_e into
// M[e][K][C] (the first pass writes it): K rows, C along its vectors,
// reducing over the pass's tiles. Then winograd_wgrad_output, once.
// Needs the prelude of ops/winograd/WinogradSource.cpp, kernels_cl/storage.cl,
// gradient_sums.cl (gradient_blend) and winograd_gemm.cl (tile_position).
//
// Why these layouts and work-items (2 Zen 3 cores, PoCL 3.1, F(3x3,4x4) at
// N = 1, each kernel timed alone after a queue finish, medians of 5): on
// VGG-16's conv1.2 (64 x 224 x 224, 3136 tiles) x transformed a tile a
// work-item into V[e][C][T] took 26 ms, a channel a lane (8 a work-item)
// into V[e][T][C] 4.2; dy a channel a lane into D[e][T][K] 18 ms, a tile a
// work-item into D[e][K][T] 15, 8 tiles a work-item 3.9; the GEMM 10-13.
// On conv3.2 (256 x 56 x 56) the output transform took 4.2 ms a (k, c) a
// work-item and 0.73 with 8 channels a work-item.

// D = G dy_t G^T for tiles tile0 .. tile0 + T - 1 of every output channel,
// DL (8) consecutive tiles a work-item, one a lane of a float8; dy past P or
// Q (the ragged last tiles) reads 0. Where the 8 tiles lie in one tile row
// inside dy's width, each of their r rows is one run of 8 r floats read as
// vectors and dealt into the lanes by swizzles; otherwise each lane reads
// its own tile. D's rows are contiguous along t: 8 tiles are one vector
// store. NDRange: dim0 = ceil(T / DL), dim1 = K.
#define DL 8
__kernel void winograd_wgrad_dy(__global const STORAGE* restrict dy, const ulong dy_offset,
                                __global float* restrict d, const ulong d_offset, const int K, const int P,
                                const int Q, const int tiles_w, const int tiles_per_image, const int tile0,
                                const int T) {
    const int t0 = (int)get_global_id(0) * DL, k = (int)get_global_id(1);
    if (t0 >= T || k >= K) return;
    int n, ty, tx;
    tile_position(tile0 + t0, tiles_per_image, tiles_w, &n, &ty, &tx);
    float8 g[WINO_R][WINO_R];  // lane l: tile t0 + l's dy[i][j]
    if (t0 + DL <= T && tx + DL <= tiles_w && (tx + DL) * WINO_R <= Q) {
        __global const STORAGE* dyk = dy + dy_offset + ((size_t)n * K + k) * P * Q + tx * WINO_R;
#pragma unroll
        for (int i = 0; i < WINO_R; ++i) {
            const int py = ty * WINO_R + i;
            if (py >= P) {
#pragma unroll
                for (int j = 0; j < WINO_R; ++j) g[i][j] = (float8)(0.0f);
                continue;
            }
            __global const STORAGE* row = dyk + (size_t)py * Q;
#if WINO_R == 2
            const float16 v = LOADN(16, 0, row);
            g[i][0] = v.even;
            g[i][1] = v.odd;
#elif WINO_R == 4
            const float16 a = LOADN(16, 0, row), b = LOADN(16, 1, row);
            g[i][0] = (float8)(a.even.even, b.even.even);
            g[i][1] = (float8)(a.odd.even, b.odd.even);
            g[i][2] = (float8)(a.even.odd, b.even.odd);
            g[i][3] = (float8)(a.odd.odd, b.odd.odd);
#else
#error "the dy transform deals tiles of 2 or 4 into lanes"
#endif
        }
    } else {
        float lanes[WINO_R][WINO_R][DL];
        for (int l = 0; l < DL; ++l) {
            int ln, lty, ltx;
            tile_position(tile0 + min(t0 + l, T - 1), tiles_per_image, tiles_w, &ln, &lty, &ltx);
            __global const STORAGE* dyk = dy + dy_offset + ((size_t)ln * K + k) * P * Q;
            for (int i = 0; i < WINO_R; ++i) {
                const int py = lty * WINO_R + i;
                for (int j = 0; j < WINO_R; ++j) {
                    const int px = ltx * WINO_R + j;
                    lanes[i][j][l] = py < P && px < Q ? LOAD(dyk, py * Q + px) : 0.0f;
                }
            }
        }
#pragma unroll
        for (int i = 0; i < WINO_R; ++i)
#pragma unroll
            for (int j = 0; j < WINO_R; ++j) g[i][j] = vload8(0, lanes[i][j]);
    }
    float8 s[WINO_ALPHA][WINO_R];
    float8 o[WINO_ALPHA][WINO_ALPHA];
#define GCOL(i) g[i][j]
#define SCOL(i) s[i][j]
#pragma unroll
    for (int j = 0; j < WINO_R; ++j) { WINO_G(GCOL, SCOL) }
#define SROW(j) s[i][j]
#define OROW(j) o[i][j]
#pragma unroll
    for (int i = 0; i < WINO_ALPHA; ++i) { WINO_G(SROW, OROW) }
#undef GCOL
#undef SCOL
#undef SROW
#undef OROW
    __global float* dk = d + d_offset + (size_t)k * T + t0;
    const size_t e_stride = (size_t)K * T;
    const bool whole = t0 + DL <= T;
#pragma unroll
    for (int e = 0; e < WINO_ALPHA * WINO_ALPHA; ++e) {
        const float8 value = o[e / WINO_ALPHA][e % WINO_ALPHA];
        if (whole) {
            vstore8(value, 0, dk + e * e_stride);
        } else {
            float out[DL];
            vstore8(value, 0, out);
            for (int l = 0; l < T - t0; ++l) dk[e * e_stride + l] = out[l];
        }
    }
}

// dw[k][c] = beta * dw[k][c] + A^T M_kc A for DL (8) consecutive channels c
// a work-item, one a lane, M_kc the alpha x alpha values of M[e][K][C] at
// (k, c) summed over every tile: each transform element is one vector load,
// and the 8 channels' filters, 8 m^2 floats in a row of dw, are written in
// order. NDRange: dim0 = ceil(C / DL), dim1 = K.
__kernel void winograd_wgrad_output(__global const float* restrict m, const ulong m_offset,
                                    __global STORAGE* restrict dw, const ulong dw_offset, const float beta,
                                    const int C, const int K) {
    const int c0 = (int)get_global_id(0) * DL, k = (int)get_global_id(1);
    if (c0 >= C || k >= K) return;
    const int lanes = min(DL, C - c0);
    __global const float* mk = m + m_offset + (size_t)k * C + c0;
    const size_t e_stride = (size_t)K * C;
    float8 s[WINO_M][WINO_ALPHA];
    float8 o[WINO_M][WINO_M];
    float8 in[WINO_ALPHA];
#define IN(i) in[i]
#define SCOL(i) s[i][j]
#pragma unroll
    for (int j = 0; j < WINO_ALPHA; ++j) {
#pragma unroll
        for (int i = 0; i < WINO_ALPHA; ++i) {
            __global const float* me = mk + (size_t)(i * WINO_ALPHA + j) * e_stride;
            if (lanes == DL) {
                in[i] = vload8(0, me);
            } else {
                float f[DL];
                for (int l = 0; l < DL; ++l) f[l] = l < lanes ? me[l] : 0.0f;
                in[i] = vload8(0, f);
            }
        }
        WINO_AT(IN, SCOL)
    }
#define SROW(j) s[i][j]
#define OROW(j) o[i][j]
#pragma unroll
    for (int i = 0; i < WINO_M; ++i) { WINO_AT(SROW, OROW) }
#undef IN
#undef SCOL
#undef SROW
#undef OROW
    // Lane l's filter at out[l * m^2 ..]: the lanes' filters lie side by side in dw.
    float out[DL * WINO_M * WINO_M];
#pragma unroll
    for (int i = 0; i < WINO_M; ++i)
#pragma unroll
        for (int j = 0; j < WINO_M; ++j) {
            float f[DL];
            vstore8(o[i][j], 0, f);
#pragma unroll
            for (int l = 0; l < DL; ++l) out[l * WINO_M * WINO_M + i * WINO_M + j] = f[l];
        }
    // Eight at a time (gradient_sums.cl's blend_eight): in half, lone stores had made this kernel 13.8 ms
    // against float32's 5.8 on res5's 512 x 512 3x3 at N = 8 (Zen 3).
    __global STORAGE* dwp = dw + dw_offset + ((size_t)k * C + c0) * (WINO_M * WINO_M);
    const int count = lanes * WINO_M * WINO_M;
    int q = 0;
    for (; q + 8 <= count; q += 8) blend_eight(beta, dwp + q, vload8(0, out + q));
    for (; q < count; ++q) STORE(dwp, q, gradient_blend(beta, dwp, q, out[q]));
}
