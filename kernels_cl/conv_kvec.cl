// Implicit-GEMM convolution vectorised over output channels, needing no
// im2col workspace: Y^T[PQ x K] = col^T[PQ x C*R*S] * Wp[C*R*S x K], with
// the input gathered on the fly. Needs kernels_cl/gemm_tile.cl first. Used
// for strided 1x1 layers, 3x3 stride 2 and the 7x7 stride-2 stem; valid for
// any R, S, stride and padding (dilation 1).
//
// Why it is shaped so (measured on PoCL, 2 cores of a Zen-1 EPYC, peak 80
// GFLOPS):
//  * Vectorised along the columns (pixels), a stride-2 vector must be
//    assembled from every other float: shuffles that compete with the FMAs
//    (3x3 s2 at 33-38 GFLOPS). Here the gathered operand is the broadcast
//    one: each of the MR pixels of the tile is one scalar broadcast from any
//    address, so stride, padding and row wrap cost nothing, and the vector
//    operand is the weights: 1x1 s2 at 53-62, 3x3 s2 at 62-66, the stem at 49.
//  * Weights are packed once per set_weights (conv_kvec_pack below) into
//    NR-channel panels Wp[ceil(K/NR)][R][C][S][NR], zero-padded: one
//    work-item's weights are one sequential stream. The plain [R][S][C][K]
//    layout jumps K*4 bytes every step and ran 3-4x slower on weight-heavy
//    layers (res5 1x1 s2: 16 against 57 GFLOPS).
//  * Interior rows (every tap of every pixel of the tile inside the image for
//    this r) loop c outer with s unrolled and no bookkeeping; that is what
//    makes the C = 3 stem fast. Border taps check validity per (r, s): a tap
//    every pixel has inside takes a plain loop, the others clear an outside
//    pixel's value by a mask of its bits (not a multiply by 0, so a NaN or
//    Inf at the clamped address never leaks in).
//
// Tile: MR consecutive output pixels x NR output channels, the pixels counted
// flat over the whole batch (n*P*Q + p*Q + q: a tile may wrap rows and
// images). The batch is folded in because ResNet's res5 layers have 49 pixels
// an image: per image, a tile of 8 pixels left 6 tiles to share each weight
// panel; over a batch of 8 the panel is read by 49 (res5.3x3 at N = 8:
// measured below in the README's speed section). NDRange: dim0 = channel
// panels, dim1 = groups of KT pixel tiles (a tile where KT is 1); the host
// keeps images * image strides in int.
// Build options: MR, NV, VW, S (the filter width: the tap loop of the interior
// path unrolls over it), BIAS, KT and KCB (below). The rest of the geometry (R, strides, top/left
// padding) arrives as arguments, so one build serves every layer of a filter
// width (PoCL compiles a kernel in seconds); for a layer large enough to pay
// for a build of its own the configuration fixes it too (FIXED_GEOMETRY with
// FR, FSH, FSW, FPH, FPW: 5-15% faster on ResNet-50's 3x3 stride-2 layers).
//
// 3-D (NCDHW, build option DEPTH): the pixels are counted over O x P x Q,
// each pixel also has a first plane, and a loop over the T filter planes
// wraps the row taps, the weights packed Wp[panel][T][R][C][S][NR] (the pack
// kernel below is handed T*R rows and gives exactly that order). Without
// DEPTH the plane loop is gone and the 2-D kernel is the one it was; its
// depth arguments are then 1, 1, 1, 1, 0.

// X_TYPE: the input's type, the layer's (STORAGE) unless the host widened a
// float16 input to float32 first (kernels_cl/widen.cl says why).
#ifndef X_TYPE
#define X_TYPE STORAGE
#endif
// KT: pixel tiles a work-item owns (dim1 then counts groups of KT tiles),
// taken in turn over blocks of KCB channels, so that the KT tiles share each
// block's weights from L1 where one tile streams its whole panel from L2
// (1: one tile, no blocks; ImplicitGemmConfig.cpp says where each is used).
#ifndef KT
#define KT 1
#endif
#if VW == 4
#define HALF_BITS_T ushort4
#define HALF_BITS netcl_half_bits_from_float4
#elif VW == 8
#define HALF_BITS_T ushort8
#define HALF_BITS netcl_half_bits_from_float8
#else
#define HALF_BITS_T ushort16
#define HALF_BITS netcl_half_bits_from_float16
#endif

__kernel void conv_kvec(__global const X_TYPE* restrict X, const ulong x_offset, const int x_image_stride,
                        __global const float* restrict Wp, const ulong wp_offset, __global STORAGE* restrict Y,
                        const ulong y_offset,
                        const int y_image_stride, __global const STORAGE* restrict bias, const ulong bias_offset,
                        const int C, const int H, const int W, const int K, const int P, const int Q,
                        const int images, const int r_arg, const int sh_arg, const int sw_arg, const int ph_arg,
                        const int pw_arg, const int D, const int O, const int T, const int sd, const int pd_arg) {
#ifdef FIXED_GEOMETRY
#define R FR
#define SH FSH
#define SW FSW
#define PH FPH
#define PW FPW
#else
#define R r_arg
#define SH sh_arg
#define SW sw_arg
#define PH ph_arg
#define PW pw_arg
#endif
    const int PQ = P * Q;
#ifdef DEPTH
    const int image_pixels = O * PQ, plane = H * W, channel = D * plane;
#else
    const int image_pixels = PQ, channel = H * W;
#endif
    const int M = images * image_pixels;
    const int ntk = (K + NR - 1) / NR, ntp = (M + MR - 1) / MR;
    // dim1 counts groups of KT pixel tiles (one tile where KT is 1).
    const int tk = (int)get_global_id(0), tg = (int)get_global_id(1);
    if (tk >= ntk || tg * KT >= ntp) return;
#if KT == 1
    const int tiles = 1;
#else
    const int tiles = min(KT, ntp - tg * KT);
#endif
    const int k0 = tk * NR;  // a panel: guarded stores, no shift-back
    X += x_offset;
    Y += y_offset;
#ifdef DEPTH
    Wp += wp_offset + (size_t)tk * T * R * C * S * NR;
#else
    Wp += wp_offset + (size_t)tk * R * C * S * NR;
#endif
    bias += bias_offset;

    // Per pixel of each tile: its top-left tap (row, column) and its image's
    // first float, where every address of the tile is then base + row * W +
    // column. A tile's first pixel: the last tile is shifted back.
    int m0[KT], ph[KT][MR], pw[KT][MR], base[KT][MR], cols_in[KT];
#ifdef DEPTH
    int first_plane[KT][MR];
#endif
    for (int t = 0; t < tiles; ++t) {
        m0[t] = max(min((tg * KT + t) * MR, M - MR), 0);
        cols_in[t] = 1;  // every tap of every pixel inside the row width
#pragma unroll
        for (int i = 0; i < MR; ++i) {
            const int pixel = min(m0[t] + i, M - 1);
            const int n = pixel / image_pixels;
#ifdef DEPTH
            const int opq = pixel - n * image_pixels, o = opq / PQ, pq = opq - o * PQ;
            first_plane[t][i] = o * sd - pd_arg;
#else
            const int pq = pixel - n * PQ;
#endif
            const int p = pq / Q, q = pq - p * Q;
            ph[t][i] = p * SH - PH;
            pw[t][i] = q * SW - PW;
            base[t][i] = n * x_image_stride;
            cols_in[t] &= (pw[t][i] >= 0) & (pw[t][i] + S - 1 < W);
        }
    }

    vec_t acc[MR][NV];
#pragma unroll
    for (int i = 0; i < MR; ++i)
#pragma unroll
        for (int v = 0; v < NV; ++v) acc[i][v] = (vec_t)(0.0f);
    vec_t b[NV];
#if KT > 1
    // KT tiles share each block of KCB channels' weights while it is in L1:
    // a 3x3 panel of 64 channels is C * 2.25 KiB (1.2 MB at C = 512), which
    // one tile at a time streams from L2 for 16 FMAs per 256 bytes. The
    // tiles' sums wait here between blocks.
    vec_t sums[KT][MR][NV];
    for (int t = 0; t < KT; ++t)
#pragma unroll
        for (int i = 0; i < MR; ++i)
#pragma unroll
            for (int v = 0; v < NV; ++v) sums[t][i][v] = (vec_t)(0.0f);
    const int channel_block = KCB;
// A tile's MR x NV vectors from one array to another: into the registers
// before a block, back after it, and before the store.
#define TILE_SUMS(to, from)                                   \
    _Pragma("unroll") for (int i = 0; i < MR; ++i)            \
        _Pragma("unroll") for (int v = 0; v < NV; ++v) (to)[i][v] = (from)[i][v]
#else
    const int channel_block = C;
#define TILE_SUMS(to, from)
#endif

    // PIXEL_BASE(t, i): pixel i of tile t's first float of this filter
    // plane's input plane; PLANE_IN(t, i): whether that plane is inside the
    // input. In 2-D they are base[t][i] and 1, so the 2-D build is the kernel
    // it was before DEPTH (arrays set to those values instead ran ResNet-50's
    // implicit-GEMM layers 9-23% slower in two A/B runs).
#ifdef DEPTH
    int pbase[KT][MR], pin[KT][MR];
#define PIXEL_BASE(t, i) pbase[t][i]
#define PLANE_IN(t, i) pin[t][i]
    for (int u = 0; u < T; ++u) {
        int any_plane = 0;
        for (int t = 0; t < tiles; ++t)
#pragma unroll
            for (int i = 0; i < MR; ++i) {
                const int d = first_plane[t][i] + u;
                pin[t][i] = (d >= 0) & (d < D);
                pbase[t][i] = base[t][i] + (pin[t][i] ? d : 0) * plane;
                any_plane |= pin[t][i];
            }
        if (!any_plane) continue;
        __global const float* wu = Wp + (size_t)u * R * C * S * NR;
#else
#define PIXEL_BASE(t, i) base[t][i]
#define PLANE_IN(t, i) 1
    {
        __global const float* wu = Wp;
#endif
    for (int r = 0; r < R; ++r) {
        __global const float* wr = wu + (size_t)r * C * S * NR;
    for (int c0 = 0; c0 < C; c0 += channel_block) {
        const int c1 = min(C, c0 + channel_block);
    for (int t = 0; t < tiles; ++t) {
        int row_in = 1, any_row = 0;
#pragma unroll
        for (int i = 0; i < MR; ++i) {
            const int in = (ph[t][i] + r >= 0) & (ph[t][i] + r < H) & PLANE_IN(t, i);
            row_in &= in;
            any_row |= in;
        }
        if (!any_row) continue;
        TILE_SUMS(acc, sums[t]);
        if (row_in & cols_in[t]) {
            int off[MR];
#pragma unroll
            for (int i = 0; i < MR; ++i) off[i] = PIXEL_BASE(t, i) + (ph[t][i] + r) * W + pw[t][i];
            __global const X_TYPE* xp = X + (size_t)c0 * channel;
            __global const float* wp = wr + (size_t)c0 * S * NR;
            for (int c = c0; c < c1; ++c) {
#pragma unroll
                for (int s = 0; s < S; ++s) {
#pragma unroll
                    for (int v = 0; v < NV; ++v) b[v] = VLOAD(v, wp + s * NR);
#pragma unroll
                    for (int i = 0; i < MR; ++i) {
                        const vec_t a = (vec_t)(LOAD_AS(X_TYPE, xp, off[i] + s));
#pragma unroll
                        for (int v = 0; v < NV; ++v) acc[i][v] = fma(a, b[v], acc[i][v]);
                    }
                }
                wp += S * NR;
                xp += channel;
            }
        } else {
        for (int s = 0; s < S; ++s) {
            int off[MR], in[MR];
            int inside = 0;
#pragma unroll
            for (int i = 0; i < MR; ++i) {
                const int ih = ph[t][i] + r, iw = pw[t][i] + s;
                in[i] = PLANE_IN(t, i) && ih >= 0 && ih < H && iw >= 0 && iw < W;
                off[i] = in[i] ? PIXEL_BASE(t, i) + ih * W + iw : 0;
                inside += in[i];
            }
            if (inside == 0) continue;
            __global const float* wp = wr + (size_t)c0 * S * NR + s * NR;
            __global const X_TYPE* xp = X + (size_t)c0 * channel;
            // A tap every pixel of the tile has inside needs no mask: a tile
            // holding a row's first pixel of a padded stride-2 layer is
            // outside only on its s = 0 taps. With a select on every tap
            // (a masked load each, three uops against the broadcast's one)
            // ResNet's res5.3x3.stride2 at N = 8 took 11.0-11.3 ms, 10.3 with
            // this loop (a tile a work-item).
            if (inside == MR) {
                for (int c = c0; c < c1; ++c) {
#pragma unroll
                    for (int v = 0; v < NV; ++v) b[v] = VLOAD(v, wp);
#pragma unroll
                    for (int i = 0; i < MR; ++i) {
                        const vec_t a = (vec_t)(LOAD_AS(X_TYPE, xp, off[i]));
#pragma unroll
                        for (int v = 0; v < NV; ++v) acc[i][v] = fma(a, b[v], acc[i][v]);
                    }
                    wp += S * NR;
                    xp += channel;
                }
                continue;
            }
            // The others keep a pixel's bits through a mask of all ones or
            // zeros (+0.0f, whatever the clamped address holds): PoCL made
            // the select a masked load, a mask move and a broadcast on the
            // FMAs' ports; the mask is a scalar AND. ResNet's res3 and res4
            // 3x3 stride-2 layers at N = 8 ran 0.65-0.72x of oneDNN so,
            // 0.75-0.81x masked (res5's within the host's spread).
            uint keep[MR];
#pragma unroll
            for (int i = 0; i < MR; ++i) keep[i] = in[i] ? 0xffffffffu : 0u;
            for (int c = c0; c < c1; ++c) {
#pragma unroll
                for (int v = 0; v < NV; ++v) b[v] = VLOAD(v, wp);
#pragma unroll
                for (int i = 0; i < MR; ++i) {
                    const float x = LOAD_AS(X_TYPE, xp, off[i]);
                    const vec_t a = (vec_t)(as_float(as_uint(x) & keep[i]));
#pragma unroll
                    for (int v = 0; v < NV; ++v) acc[i][v] = fma(a, b[v], acc[i][v]);
                }
                wp += S * NR;
                xp += channel;
            }
        }
        }
        TILE_SUMS(sums[t], acc);
    }  // the tiles
    }  // the channel blocks
    }  // the filter rows
    }  // the filter planes (one in 2-D)
#undef PIXEL_BASE
#undef PLANE_IN

    // Transposed store, a tile at a time: acc[i][v] (reloaded from the tile's
    // sums where KT > 1) holds channels k0 + v*VW .. of pixel m0[tile] + i.
    // A full panel stores unguarded: with a guard per lane PoCL kept the 64
    // conditions on the stack, with a break the lane loop did not unroll and
    // LANE became a jump table per float (perf on the C = 3 stem, whose 147
    // reduction steps make the store a large share: 44-50% of the kernel).
#ifdef BIAS
#define OUT(i, v, t) (LANE(acc[i][v], t) + LOAD(bias, k0 + (v) * VW + (t)))
#else
#define OUT(i, v, t) LANE(acc[i][v], t)
#endif
    const int full_panel = k0 + NR <= K;
    for (int tile = 0; tile < tiles; ++tile) {
    TILE_SUMS(acc, sums[tile]);
#pragma unroll
    for (int i = 0; i < MR; ++i) {
        if (m0[tile] + i >= M) continue;  // only when M < MR (the tile is larger than the batch)
#ifdef POST_SUM
        if (m0[tile] + i < (tg * KT + tile) * MR) continue;  // the shifted-back last tile's rows its neighbour stored
#endif
        const int n = (m0[tile] + i) / image_pixels;
        __global STORAGE* yi =
            Y + (size_t)n * y_image_stride + (m0[tile] + i - n * image_pixels) + (size_t)k0 * image_pixels;
        if (full_panel) {
#if defined(STORAGE_HALF) && !defined(POST_SUM)
            // Half: the VW channels rounded in one vector conversion, then
            // stored a lane each (scalar conversions held the stem at 0.58x
            // of float32 at N = 8). Without POST_SUM, POST_OPS is ACTIVATE.
#pragma unroll
            for (int v = 0; v < NV; ++v) {
#ifdef BIAS
                const vec_t o = ACTIVATE(acc[i][v] + LOADN(VW, 0, bias + k0 + v * VW));
#else
                const vec_t o = ACTIVATE(acc[i][v]);
#endif
                const HALF_BITS_T bits = HALF_BITS(o);
#pragma unroll
                for (int t = 0; t < VW; ++t)
                    ((__global ushort*)(yi + (size_t)(v * VW + t) * image_pixels))[0] = LANE(bits, t);
            }
#else
#pragma unroll
            for (int v = 0; v < NV; ++v)
#pragma unroll
                for (int t = 0; t < VW; ++t) {
                    __global STORAGE* yo = yi + (size_t)(v * VW + t) * image_pixels;
                    STORE(yo, 0, POST_OPS(OUT(i, v, t), LOAD(yo, 0)));
                }
#endif
        } else {
#pragma unroll
            for (int v = 0; v < NV; ++v)
#pragma unroll
                for (int t = 0; t < VW; ++t)
                    if (k0 + v * VW + t < K) {
                        __global STORAGE* yo = yi + (size_t)(v * VW + t) * image_pixels;
                        STORE(yo, 0, POST_OPS(OUT(i, v, t), LOAD(yo, 0)));
                    }
        }
    }
    }  // the tiles
#undef OUT
#undef TILE_SUMS
}

#undef R
#undef SH
#undef SW
#undef PH
#undef PW

// Packs weights K x C x R x S (one group's, `w` at its first filter) into
// conv_kvec's panels Wp[ceil(K/NR)][R][C][S][NR], zeros past K. Once per
// set_weights, which a training step calls every step. A 3-D filter
// K x C x T x R x S is packed as one with T*R rows: row u*R + r of channel c
// is its plane u, row r, the Wp[panel][T][R][C][S][NR] conv_kvec reads.
// It is a transpose of K x (C*R*S) into panels, done a 4 x 16 block a
// work-item: 4 filters' runs of 16 weights read (a cache line each), 16 runs
// of 4 channels written, which the work-items after it along dim0 (the next
// 4 filters) continue. Filters C*R*S floats apart, 4 KiB for a 1x1 layer of
// 1024 channels, fall in one cache set: a work-item a weight, work-items
// along K, took 11.5 ms for res5.projection's (2 Xeon cores, PoCL 3.1).
// A work-item moves PACK_RUNS such blocks in turn along its 4 filters, so
// that its reads are 4 sequential streams of 1 KiB, where the work-groups
// after it had each read the next line of all NR filters, NR streams a
// filter apart (18 KiB on res5's 3x3), more than the prefetchers follow. A
// training step packs every step: res5's and res4's 3x3 stride 2 at N = 8
// (forward and backward data's four phases, netcl-bench --direction train
// --repeat 15, 2 Xeon cores), the pack's perf samples against the GEMM's
// (conv_kvec) 0.16, 0.17 -> 0.10-0.14 (6 runs); 4 blocks 0.15-0.20, 64
// blocks 0.12 (2 runs each).
// Build options PACK_K (filters a block), PACK_RUN (weights a block) and
// PACK_RUNS: the host sizes the NDRange from the same constants
// (ImplicitGemmConfig::kPack*). NDRange: dim0 = ceil(K/NR)*NR / PACK_K,
// dim1 = ceil(C*R*S / (PACK_RUN * PACK_RUNS)).
#if !defined(PACK_K) || !defined(PACK_RUN) || !defined(PACK_RUNS)
#error "conv_kvec_pack needs PACK_K, PACK_RUN and PACK_RUNS (ImplicitGemmConfig::program)"
#endif
__kernel void conv_kvec_pack(__global const STORAGE* restrict w, const ulong w_offset, __global float* restrict wp,
                             const ulong wp_offset, const int K, const int C, const int R) {
    const int k0 = (int)get_global_id(0) * PACK_K;
    const int crs_first = (int)get_global_id(1) * (PACK_RUN * PACK_RUNS);
    const int crs_count = C * R * S;
    // The host's range is exact (whole panels, a work-item's weights rounded up); the guard keeps a
    // larger one from writing past the last panel.
    if (k0 >= (K + NR - 1) / NR * NR || crs_first >= crs_count) return;
    const int lane = k0 % NR;
    __global float* panel = wp + wp_offset + (size_t)(k0 / NR) * crs_count * NR + lane;
    // The work-item's first (c, r, s) divided out once, then stepped across its runs (every run but the
    // last is whole, so each starts where the one before ended): R is an argument, and a division by it
    // for each weight cost more than its load and store.
    int c = crs_first / (R * S), r = crs_first / S % R, s = crs_first % S;
    for (int run = 0; run < PACK_RUNS; ++run) {
        const int crs0 = crs_first + run * PACK_RUN;
        if (crs0 >= crs_count) break;
        float block[PACK_K][PACK_RUN];
#pragma unroll
        for (int j = 0; j < PACK_K; ++j) {
#pragma unroll
            for (int i = 0; i < PACK_RUN; ++i) {
                const int crs = min(crs0 + i, crs_count - 1);  // past the end: read, never stored
                block[j][i] = k0 + j < K ? LOAD(w, w_offset + (size_t)(k0 + j) * crs_count + crs) : 0.0f;
            }
        }
#pragma unroll
        for (int i = 0; i < PACK_RUN; ++i) {
            if (crs0 + i >= crs_count) break;
            __global float* to = panel + (((size_t)r * C + c) * S + s) * NR;
#pragma unroll
            for (int j = 0; j < PACK_K; ++j) to[j] = block[j][i];
            if (++s == S) {
                s = 0;
                if (++r == R) r = 0, ++c;
            }
        }
    }
}
