// Winograd F(m x m, 3 x 3) convolution, stride 1, NCHW, in one kernel of
// three phases (Lavin & Gray Algorithm 1, fused):
//   1. input tiles d (alpha x alpha) read, V = B^T d B into local memory;
//   2. M[e][k][t] += U[e][c][k] * V[e][c][t] summed over C: one small GEMM per
//      transform element e (eq. 13), accumulators in registers;
//   3. Y = A^T M A with bias written to global memory.
// A work-group owns BK output channels x BT tiles (tiles are numbered over
// N x tiles_h x tiles_w, so small images still fill a block), and walks C in
// steps of BC. Each transformed input in local memory feeds BK channels.
//
// Work-items: (BK/8) x alpha^2. Work-item (kv, e) owns transform element e of
// output channels kv*8 .. kv*8+7 for all BT tiles: BT float8 accumulators.
// U is read as float8 along k (consecutive work-items read consecutive
// 32-byte pieces: coalesced; on PoCL it is the vector across k), V as
// scalars broadcast over the float8.
//
// Needs the prelude of ops/winograd/WinogradSource.cpp (WINO_M, WINO_ALPHA,
// WINO_BT, WINO_AT) and the build options of ops/winograd/WinogradConfig.cpp:
// BK (multiple of 8), BT, BC, SK, V_ESTRIDE, LOCAL_FLOATS. The local-memory
// layout comes from the configuration, so the size the host checks against
// the device is the size the kernel declares. Optional:
//   U_CONSTANT      U bound as __constant (it fits the device's constant
//                   buffer), else __global const. (The work-items of one
//                   NVIDIA warp read different U elements, which __constant
//                   serialises: there only small low-local layers take it.)
//   C_TAIL          the last C step multiplies only the channels that exist,
//                   in chunks of C_CHUNK (U is padded to a multiple of
//                   C_CHUNK, not of a whole C step: few multiply-adds of
//                   zeros; NVIDIA), else a fixed trip count over U padded to
//                   whole C steps (PoCL vectorises the fixed loop better).
// Split C: the work-groups of one K block and tile block may be spread over
// `c_slice`-channel slices of C (more work-groups for small layers on many
// compute units); each writes its partial output, without bias, to its own
// slice of `y` (y_split_stride floats apart), and winograd_reduce below sums
// the slices and adds the bias.
//
// Every shape is handled by bounds, not by padded copies: input elements
// outside the image (padding, the ragged last tile) or past C count as 0 (the
// load address is clamped into the tensor, the value zeroed), outputs past P,
// Q or K are not written. U is padded to Kp (a multiple of BK) and Cp with
// zeros by winograd_weights, laid out [K block][Cp][e][BK] so a work-group's
// U for one step of C is one contiguous piece.

#ifdef U_CONSTANT
#define U_SPACE __constant
#else
#define U_SPACE __global const
#endif

#if !defined(BK) || !defined(BT) || !defined(BC) || !defined(SK) || !defined(V_ESTRIDE) || !defined(LOCAL_FLOATS)
#error "winograd_fused.cl needs BK, BT, BC, SK, V_ESTRIDE and LOCAL_FLOATS from WinogradConfig::build_options()"
#endif
#if WINO_TILE != WINO_ALPHA
#error "the fused kernel takes tiles of real points only (alpha = m + r - 1; WinogradMatrices.hpp)"
#endif
#define A2 (WINO_ALPHA * WINO_ALPHA)
#define KV (BK / 8)
#define LSIZE (KV * A2)
// V_ESTRIDE: one row of V (one e) is BC x BT floats, padded so that the
// work-items of different e reading the same (c, t) hit different banks.
// SK: phase 3 stages M through local memory SK output channels at a time.
#define KVS (SK / 8)
// U as 128-bit loads: a float8 is two float4s from a pointer the compiler
// knows is 16-byte aligned (every offset into U is a multiple of 8 floats),
// so NVIDIA's compiler emits two ld.v4 instead of eight 32-bit loads.
#define U_LOAD8(p) ((float8)(((U_SPACE float4*)(p))[0], ((U_SPACE float4*)(p))[1]))

// The layer's tensors (x, bias, y) in its storage type (kernels_cl/storage.cl),
// U and the arithmetic float32. A half layer whose C is split (PARTIAL_FLOAT)
// writes its partial outputs to the float32 workspace, which winograd_reduce
// sums into y; in float32 both are float and the two cases one kernel.
#ifdef PARTIAL_FLOAT
#define OUT_T float
#define OUT_LOAD(p, i) ((p)[i])
#define OUT_STORE(p, i, v) ((p)[i] = (v))
#else
#define OUT_T STORAGE
#define OUT_LOAD(p, i) LOAD(p, i)
#define OUT_STORE(p, i, v) STORE(p, i, v)
#endif

__kernel __attribute__((reqd_work_group_size(KV, A2, 1))) void winograd_fused(
    __global const STORAGE* restrict x, const ulong x_offset, U_SPACE float* restrict u,
    __global const STORAGE* restrict bias, const ulong bias_offset, __global OUT_T* restrict y, const ulong y_offset,
    const int C, const int H, const int W, const int K, const int P, const int Q, const int pad_top,
    const int pad_left, const int tiles_w, const int tiles_per_image, const int tiles_total, const int x_channels,
    const int c_base, const int y_channels, const int k_base, const int Cp, const int u_offset, const int has_bias,
    const int tile_blocks, const int c_slice, const ulong y_split_stride, const int final_output) {
    // Each tensor starts `*_offset` floats into its buffer (a framework's view).
    x += x_offset;
    bias += bias_offset;
    y += y_offset;
    // V (phases 1-2) and M (phase 3) are never live at once: one array.
    __local float lmem[LOCAL_FLOATS];

    const int kv = (int)get_local_id(0);
    const int e = (int)get_local_id(1);
    const int lid = e * KV + kv;
    // Work-groups taken in launch order share a K block and step through the
    // tile blocks: groups running at the same time stream the same slice of U,
    // which then comes from the shared cache instead of memory (U is the
    // largest operand: alpha^2 x C x K floats).
    // Dimension 2 enumerates (C slice, tile block); a slice's partial output
    // goes to its own part of y.
    const int split = (int)get_group_id(2) / tile_blocks;
    const int linear = (int)get_group_id(0) + ((int)get_group_id(2) - split * tile_blocks) * (int)get_num_groups(0);
    const int kblock = linear / tile_blocks;
    const int k0 = kblock * BK;
    const int tile0 = (linear - kblock * tile_blocks) * BT;
    const int c_begin = split * c_slice, c_end = min(C, c_begin + c_slice);
    y += (size_t)split * y_split_stride;

    float8 acc[BT];
#pragma unroll
    for (int t = 0; t < BT; ++t) acc[t] = (float8)(0.0f);

    for (int c0 = c_begin; c0 < c_end; c0 += BC) {
        // Phase 1: BT x BC input tiles, each transformed by one work-item, a
        // fixed number per work-item (no divergent loop; PoCL vectorises it
        // across work-items). Loads are branch-free: the address is clamped
        // into the tensor (never out of bounds) and the value zeroed where the
        // element lies outside the image, past the last tile or past C.
        for (int r = 0; r < (BT * BC + LSIZE - 1) / LSIZE; ++r) {
            const int p = lid + r * LSIZE;
#if (BT * BC) % LSIZE != 0
            if (p >= BT * BC) break;
#endif
            const int t = p % BT, c = p / BT;
            const int tile = tile0 + t, ch = c0 + c;
            const bool live = tile < tiles_total && ch < c_end;
            const int tile_c = min(tile, tiles_total - 1);
            const int n = tile_c / tiles_per_image;
            const int rest = tile_c - n * tiles_per_image;
            const int ty = rest / tiles_w, tx = rest - ty * tiles_w;
            const int iy0 = ty * WINO_M - pad_top, ix0 = tx * WINO_M - pad_left;
            __global const STORAGE* xp = x + ((size_t)n * x_channels + c_base + min(ch, C - 1)) * H * W;
            float d[WINO_ALPHA][WINO_ALPHA];
#if BT * BC > LSIZE || WINO_ALPHA > 6
            // Several tiles per work-item: unrolled, d stays in registers (else
            // clang's NVPTX path leaves it in 144 B of stack for F(4x4)). With
            // one tile per work-item ptxas keeps d in registers by itself up
            // to F(4x4) (alpha 6; F(6x6)'s 8x8 went to 256 B of stack), and
            // unrolling would only cost registers.
#pragma unroll
#endif
            for (int i = 0; i < WINO_ALPHA; ++i) {
                const int iy = iy0 + i;
                const bool row_in = live && iy >= 0 && iy < H;
                const int row = clamp(iy, 0, H - 1) * W;
                for (int j = 0; j < WINO_ALPHA; ++j) {
                    const int ix = ix0 + j;
#ifdef STORAGE_HALF
                    // In half, a load only where the element is in the image: the
                    // clamped unconditional vload_half cost sm_90 12 B of spills and
                    // 16 B of stack (F(4x4) BK=64) or 14 registers past the 25%
                    // occupancy budget (low-local F(4x4)); this form neither (tests/nvptx).
                    d[i][j] = (row_in && ix >= 0 && ix < W) ? LOAD(xp, row + ix) : 0.0f;
#else
                    const float value = xp[row + clamp(ix, 0, W - 1)];
                    d[i][j] = (row_in && ix >= 0 && ix < W) ? value : 0.0f;
#endif
                }
            }
            float s[WINO_ALPHA][WINO_ALPHA];
            // s = B^T d (each column), then V = s B (each row). Unrolled, so
            // s[][] is indexed with constants and stays in registers: with
            // netcl's F(4x4) points (denser B^T than Lavin & Gray's) clang's
            // NVPTX path otherwise kept the loops and put s on 288 B of stack.
#define DCOL(i) d[i][j]
#define SCOL(i) s[i][j]
#pragma unroll
            for (int j = 0; j < WINO_ALPHA; ++j) { WINO_BT(DCOL, SCOL) }
#define SROW(j) s[i][j]
#define VOUT(j) lmem[(i * WINO_ALPHA + (j)) * V_ESTRIDE + c * BT + t]
#pragma unroll
            for (int i = 0; i < WINO_ALPHA; ++i) { WINO_BT(SROW, VOUT) }
#undef DCOL
#undef SCOL
#undef SROW
#undef VOUT
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        // Phase 2: acc[t] += U[e][c][k0 + kv*8 .. +7] * V[e][c][t]. Without
        // C_TAIL, U is padded to Cp (a multiple of BC) with zeros: a fixed
        // trip count.
        U_SPACE float* up = u + u_offset + (((size_t)kblock * Cp + c0) * A2 + e) * BK + kv * 8;
        __local const float* vp = lmem + e * V_ESTRIDE;

        // The t loop must unroll: then the compiler keeps the BT accumulators
        // in registers across the c loop (rolled, PoCL left them in memory:
        // a load and a store per multiply-add).
#ifdef C_TAIL
        // Whole chunks of C_CHUNK channels up to Cp (Cg rounded up to
        // C_CHUNK): a fixed inner trip count the compiler unrolls, so the
        // accumulators stay in registers (a loop over exactly the channels
        // left took F(2x2) from 128 to 153 registers under ptxas).
        const int csteps = min(BC, Cp - c0);
        for (int cc = 0; cc < csteps; cc += C_CHUNK) {
#pragma unroll
            for (int c = cc; c < cc + C_CHUNK; ++c) {
                const float8 uv = U_LOAD8(up + c * A2 * BK);
#pragma unroll
                for (int t = 0; t < BT; ++t) acc[t] = fma((float8)(vp[c * BT + t]), uv, acc[t]);
            }
        }
#else
        for (int c = 0; c < BC; ++c) {
            const float8 uv = U_LOAD8(up + c * A2 * BK);
#pragma unroll
            for (int t = 0; t < BT; ++t) acc[t] = fma((float8)(vp[c * BT + t]), uv, acc[t]);
        }
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    // Phase 3: M to local memory as [e][t][k] in stages of SK channels, then
    // Y = A^T M A per (t, k).
    for (int kc = 0; kc < KV; kc += KVS) {
        if (kc > 0) barrier(CLK_LOCAL_MEM_FENCE);  // the previous stage is read
        if (kv >= kc && kv < kc + KVS)
            for (int t = 0; t < BT; ++t) vstore8(acc[t], 0, lmem + (e * BT + t) * SK + (kv - kc) * 8);
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int p = lid; p < BT * SK; p += LSIZE) {
            const int t = p % BT, kk = p / BT;
            const int tile = tile0 + t, k = k0 + kc * 8 + kk;
            if (tile >= tiles_total || k >= K) continue;
            float s[WINO_M][WINO_ALPHA];
            float o[WINO_M][WINO_M];
#define MCOL(i) lmem[((i) * WINO_ALPHA + j) * BT * SK + t * SK + kk]
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
            const float b = has_bias ? LOAD(bias, k_base + k) : 0.0f;
            const int n = tile / tiles_per_image;
            const int rest = tile - n * tiles_per_image;
            const int oy0 = (rest / tiles_w) * WINO_M, ox0 = (rest - (rest / tiles_w) * tiles_w) * WINO_M;
            __global OUT_T* yp = y + ((size_t)n * y_channels + k_base + k) * P * Q;
            // Unrolled so o[][] stays in registers (F(6x6): 144 B of NVPTX stack otherwise).
#pragma unroll
            for (int i = 0; i < WINO_M; ++i) {
                if (oy0 + i >= P) break;
#pragma unroll
                for (int j = 0; j < WINO_M; ++j)
                    if (ox0 + j < Q) {
                        // A C slice's partial output takes no post-ops: winograd_reduce applies them.
                        const int at = (oy0 + i) * Q + ox0 + j;
                        OUT_STORE(yp, at, final_output ? POST_OPS(o[i][j] + b, OUT_LOAD(yp, at)) : o[i][j] + b);
                    }
            }
        }
    }
}

// The C slices' partial outputs of winograd_fused summed, plus the bias,
// through the post-ops: y[n, k, :] = post_ops(sum_s part[s][n, k, :] + bias[k]),
// for one group's K channels.
// NDRange: dim0 = P*Q rounded up, dim1 = N * Kg.
__kernel void winograd_reduce(__global const float* restrict part, const ulong part_offset, const int splits,
                              const ulong split_stride, __global STORAGE* restrict y, const ulong y_offset,
                              __global const STORAGE* restrict bias, const ulong bias_offset, const int has_bias,
                              const int Kg, const int y_channels, const int k_base, const int PQ) {
    const int pq = (int)get_global_id(0);
    const int nk = (int)get_global_id(1);
    if (pq >= PQ) return;  // dim0 is rounded up to the work-group size
    const int n = nk / Kg, k = k_base + nk % Kg;
    const size_t at = ((size_t)n * y_channels + k) * PQ + pq;
    part += part_offset;
    float sum = has_bias ? LOAD(bias, bias_offset + k) : 0.0f;
    for (int s = 0; s < splits; ++s) sum += part[s * split_stride + at];
    STORE(y, y_offset + at, POST_OPS(sum, LOAD(y, y_offset + at)));
}
