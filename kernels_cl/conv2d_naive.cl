// Direct convolution, NCHW, weights K x C/groups x R x S, every parameter,
// and the same in 3-D (NCDHW, weights K x C/groups x T x R x S: the depth
// arguments D, T, O, stride_d, pad_front, dil_d; a 2-D layer passes 1, 1, 1,
// 1, 0, 1 and its depth loops run once), in the direction the build option
// DIRECTION names: 0 forward (y from x and
// w), 1 backward data (dx from dy and w), 2 backward weights (dw from x and
// dy; db by gradient_sums.cl's bias_gradient). One file, so the three
// directions share their index arithmetic and their register tile; one build
// per direction.
//
// Shapes arrive as kernel arguments, so one build serves every layer. Each
// work-item keeps a KB x QB register tile: KB output channels of one group
// times QB neighbouring output columns of one output row. A weight loaded once
// feeds QB products and an input loaded once feeds KB, instead of one each.
// KB is a build option (4, or 1 where a group has fewer than 4 output
// channels, e.g. depthwise, so no lanes are wasted); QB is fixed.
//
// Padding arrives as top and left only: the bottom and right padding are in
// P and Q (computed on the host), and every tap outside the image reads 0.
//
// NDRange: dim0 = ceil(Q / QB) column blocks (contiguous, so PoCL vectorises
// across them), dim1 = O x P rows, dim2 = N x groups x ceil((K/groups) / KB);
// dims 0 and 1 rounded up to the work-group size.

#ifndef KB
#define KB 4
#endif
#define QB 4
#ifndef DIRECTION
#define DIRECTION 0
#endif

#if DIRECTION == 0
__kernel void conv2d_naive(__global const STORAGE* restrict x, const ulong x_offset, __global const STORAGE* restrict w,
                           const ulong w_offset, __global const STORAGE* restrict bias, const ulong bias_offset,
                           __global STORAGE* restrict y, const ulong y_offset, const int has_bias, const int C, const int H, const int W, const int K,
                           const int P, const int Q, const int R, const int S, const int stride_h,
                           const int stride_w, const int pad_top, const int pad_left, const int dil_h,
                           const int dil_w, const int groups, const int D, const int T, const int O,
                           const int stride_d, const int pad_front, const int dil_d) {
    // Each tensor starts `*_offset` elements into its buffer (a framework's view).
    x += x_offset;
    w += w_offset;
    bias += bias_offset;
    y += y_offset;
    const int q0 = (int)get_global_id(0) * QB;
    const int row = (int)get_global_id(1);
    const int z = (int)get_global_id(2);
    if (q0 >= Q || row >= O * P) return;  // the NDRange is rounded up to the work-group size
    const int p = row % P, o = row / P;
    const int Cg = C / groups, Kg = K / groups;
    const int kblocks = (Kg + KB - 1) / KB;
    const int kb = z % kblocks;
    const int g = (z / kblocks) % groups;
    const int n = z / (kblocks * groups);
    const int k0 = g * Kg + kb * KB;
    const int kvalid = min(KB, Kg - kb * KB);
    const int RS = R * S;

    // Channels past the group's end read the last valid channel's weights
    // (branch-free) and are never stored.
    int wbase[KB];
    for (int kk = 0; kk < KB; ++kk) wbase[kk] = (k0 + min(kk, kvalid - 1)) * Cg * T * RS;

    float acc[KB][QB];
    for (int kk = 0; kk < KB; ++kk)
        for (int j = 0; j < QB; ++j) acc[kk][j] = 0.0f;

    const int d_origin = o * stride_d - pad_front;
    const int h_origin = p * stride_h - pad_top;
    const int w_origin = q0 * stride_w - pad_left;
    for (int c = 0; c < Cg; ++c) {
        for (int u = 0; u < T; ++u) {
            const int d = d_origin + u * dil_d;
            if (d < 0 || d >= D) continue;
            __global const STORAGE* xc = x + (size_t)(((n * C + g * Cg + c) * D + d) * H) * W;
            const int wc = (c * T + u) * RS;
            for (int r = 0; r < R; ++r) {
                const int h = h_origin + r * dil_h;
                if (h < 0 || h >= H) continue;
                __global const STORAGE* xrow = xc + h * W;
                for (int s = 0; s < S; ++s) {
                    float xv[QB];
                    for (int j = 0; j < QB; ++j) {
                        const int col = w_origin + j * stride_w + s * dil_w;
                        xv[j] = (col >= 0 && col < W && q0 + j < Q) ? LOAD(xrow, col) : 0.0f;
                    }
                    const int tap = wc + r * S + s;
                    for (int kk = 0; kk < KB; ++kk) {
                        const float wv = LOAD(w, wbase[kk] + tap);
                        for (int j = 0; j < QB; ++j) acc[kk][j] = fma(wv, xv[j], acc[kk][j]);
                    }
                }
            }
        }
    }

    // A loop over the fixed KB with the bound inside, not `kk < kvalid`: a
    // run-time trip count makes acc[][] indexed dynamically, which NVIDIA's
    // compiler (ptxas, via clang's NVPTX path) puts on the stack (64 bytes).
#pragma unroll
    for (int kk = 0; kk < KB; ++kk) {
        if (kk < kvalid) {
            const int k = k0 + kk;
            const float b = has_bias ? LOAD(bias, k) : 0.0f;
            __global STORAGE* out = y + (size_t)(((n * K + k) * O + o) * P + p) * Q;
            for (int j = 0; j < QB; ++j) {
                if (q0 + j < Q) STORE(out, q0 + j, POST_OPS(acc[kk][j] + b, LOAD(out, q0 + j)));
            }
        }
    }
}
#endif  // DIRECTION == 0

#if DIRECTION == 1
// Backward data: dx[n][c][h][w] gathers every dy[n][k][p][q] that x[n][c][h][w]
// fed in the forward pass, h = p * stride_h - pad_top + r * dil_h (and the same
// for w, q, s and in 3-D for d, o, u), times w[k][c][r][s], over the k of c's
// group. A gather, not
// col2im's scatter: each dx element is written once, with no atomics and no
// workspace, in the same order on every run. A tap whose p is not a whole
// number (h + pad_top - r * dil_h not a multiple of the stride) or lies
// outside the output contributes nothing.
//
// The same tile as forward with the roles of C and K swapped: a work-item
// keeps KB input channels of one group times QB columns of one row of dx,
// columns of one phase under the horizontal stride (w = phase + (b*QB + j)
// * stride_w): a tap s then feeds all QB columns or none, from QB
// neighbouring dy columns, so no product is wasted on a tap that fed
// nothing. (Neighbouring columns at stride 2 had spent 3 of 4 products on
// zeros and read dy in a gather: ResNet-50's strided layers' dgrad ran at
// 0.06x oneDNN, conv1's 305 ms against 2.8.)
//
// NDRange: dim0 = stride_w x ceil(ceil(W / stride_w) / QB) (phase-major),
// dim1 = D x H, dim2 = N x groups x ceil((C/groups) / KB).
__kernel void conv2d_naive_backward_data(__global const STORAGE* restrict dy, const ulong dy_offset,
                                         __global const STORAGE* restrict w, const ulong w_offset,
                                         __global STORAGE* restrict dx, const ulong dx_offset, const int C, const int H,
                                         const int W, const int K, const int P, const int Q, const int R, const int S,
                                         const int stride_h, const int stride_w, const int pad_top,
                                         const int pad_left, const int dil_h, const int dil_w, const int groups,
                                         const int D, const int T, const int O, const int stride_d,
                                         const int pad_front, const int dil_d) {
    dy += dy_offset;
    w += w_offset;
    dx += dx_offset;
    const int blocks_per_phase = ((W + stride_w - 1) / stride_w + QB - 1) / QB;
    const int phase = (int)get_global_id(0) / blocks_per_phase;
    const int t0 = (int)get_global_id(0) % blocks_per_phase * QB;  // first column of the block within its phase
    const int row = (int)get_global_id(1);
    const int z = (int)get_global_id(2);
    if (phase >= stride_w || row >= D * H) return;
    const int h = row % H, d = row / H;
    const int columns = (W - phase + stride_w - 1) / stride_w;  // of this phase
    if (t0 >= columns) return;
    const int Cg = C / groups, Kg = K / groups;
    const int cblocks = (Cg + KB - 1) / KB;
    const int cb = z % cblocks;
    const int g = (z / cblocks) % groups;
    const int n = z / (cblocks * groups);
    const int c0 = cb * KB;  // within the group
    const int cvalid = min(KB, Cg - c0);
    const int RS = R * S;
    const int w0 = phase + t0 * stride_w;  // column j of the block is w0 + j * stride_w

    float acc[KB][QB];
    for (int cc = 0; cc < KB; ++cc)
        for (int j = 0; j < QB; ++j) acc[cc][j] = 0.0f;

    for (int kk = 0; kk < Kg; ++kk) {
        const int k = g * Kg + kk;
        __global const STORAGE* wk = w + (size_t)k * Cg * T * RS;
        for (int u = 0; u < T; ++u) {
            const int dz = d + pad_front - u * dil_d;  // o * stride_d, if this tap was used
            if (dz < 0 || dz % stride_d != 0 || dz / stride_d >= O) continue;
            __global const STORAGE* dyk = dy + (size_t)(((n * K + k) * O + dz / stride_d) * P) * Q;
            for (int r = 0; r < R; ++r) {
                const int hp = h + pad_top - r * dil_h;  // p * stride_h, if this tap was used
                if (hp < 0 || hp % stride_h != 0 || hp / stride_h >= P) continue;
                __global const STORAGE* dyrow = dyk + (hp / stride_h) * Q;
                for (int s = 0; s < S; ++s) {
                    const int wq = w0 + pad_left - s * dil_w;  // q * stride_w for column 0, if this tap was used
                    if (((wq % stride_w) + stride_w) % stride_w != 0) continue;  // the same for every column of the phase
                    const int q0 = wq / stride_w;  // exact: column j reads dy column q0 + j
                    float dv[QB];
                    for (int j = 0; j < QB; ++j) {
                        const int q = q0 + j;
                        dv[j] = (t0 + j < columns && q >= 0 && q < Q) ? LOAD(dyrow, q) : 0.0f;
                    }
                    const int tap = u * RS + r * S + s;
                    for (int cc = 0; cc < KB; ++cc) {
                        // Channels past the group's end read the last valid one's weights; never stored.
                        const float wv = LOAD(wk, (c0 + min(cc, cvalid - 1)) * T * RS + tap);
                        for (int j = 0; j < QB; ++j) acc[cc][j] = fma(wv, dv[j], acc[cc][j]);
                    }
                }
            }
        }
    }

#pragma unroll
    for (int cc = 0; cc < KB; ++cc) {
        if (cc < cvalid) {
            __global STORAGE* out = dx + (size_t)(((n * C + g * Cg + c0 + cc) * D + d) * H + h) * W;
            for (int j = 0; j < QB; ++j) {
                if (t0 + j < columns) STORE(out, w0 + j * stride_w, acc[cc][j]);
            }
        }
    }
}
#endif  // DIRECTION == 1

#if DIRECTION == 2
// Built after kernels_cl/gradient_sums.cl (gradient_blend, and the bias
// gradient this direction runs beside its own kernel).

// Backward weights: dw[k][c][r][s] = sum over n, p, q of dy[n][k][p][q] *
// x[n][g*Cg + c][p * stride_h - pad_top + r * dil_h][q * stride_w - pad_left +
// s * dil_w] (in 3-D the same over o with tap u). One work-item per element
// of dw, summing in one fixed order, so dw is the same bit for bit on every
// run (no atomics, no split reduction).
// NDRange: dim0 = T x R x S taps, dim1 = C/groups, dim2 = K.
__kernel void conv2d_naive_backward_weights(__global const STORAGE* restrict x, const ulong x_offset,
                                            __global const STORAGE* restrict dy, const ulong dy_offset,
                                            __global STORAGE* restrict dw, const ulong dw_offset, const float beta,
                                            const int N, const int C, const int H, const int W, const int K,
                                            const int P, const int Q, const int R, const int S, const int stride_h,
                                            const int stride_w, const int pad_top, const int pad_left,
                                            const int dil_h, const int dil_w, const int groups, const int D,
                                            const int T, const int O, const int stride_d, const int pad_front,
                                            const int dil_d) {
    x += x_offset;
    dy += dy_offset;
    dw += dw_offset;
    const int tap = (int)get_global_id(0);
    const int c = (int)get_global_id(1);
    const int k = (int)get_global_id(2);
    const int Cg = C / groups, Kg = K / groups;
    if (tap >= T * R * S || c >= Cg || k >= K) return;
    const int u = tap / (R * S), r = tap / S % R, s = tap % S;
    const int g = k / Kg;
    // The output rows and columns whose tap (r, s) lands inside the image.
    const int depth_offset = u * dil_d - pad_front;
    const int row_offset = r * dil_h - pad_top, col_offset = s * dil_w - pad_left;
    const int o_first = depth_offset >= 0 ? 0 : (-depth_offset + stride_d - 1) / stride_d;
    const int p_first = row_offset >= 0 ? 0 : (-row_offset + stride_h - 1) / stride_h;
    const int q_first = col_offset >= 0 ? 0 : (-col_offset + stride_w - 1) / stride_w;
    // (C's division truncates towards zero: a tap below the image's end takes no row.)
    const int o_end = D - 1 - depth_offset < 0 ? 0 : min(O, (D - 1 - depth_offset) / stride_d + 1);
    const int p_end = H - 1 - row_offset < 0 ? 0 : min(P, (H - 1 - row_offset) / stride_h + 1);
    const int q_end = W - 1 - col_offset < 0 ? 0 : min(Q, (W - 1 - col_offset) / stride_w + 1);
    float acc = 0.0f;
    for (int n = 0; n < N; ++n) {
        const int x_channel = n * C + g * Cg + c;
        for (int o = o_first; o < o_end; ++o) {
            __global const STORAGE* xc = x + (size_t)(x_channel * D + o * stride_d + depth_offset) * H * W;
            __global const STORAGE* dyk = dy + (size_t)(((n * K + k) * O + o) * P) * Q;
            for (int p = p_first; p < p_end; ++p) {
                __global const STORAGE* xrow = xc + (p * stride_h + row_offset) * W + col_offset;
                __global const STORAGE* dyrow = dyk + p * Q;
                for (int q = q_first; q < q_end; ++q) acc = fma(LOAD(dyrow, q), LOAD(xrow, q * stride_w), acc);
            }
        }
    }
    const size_t at = (size_t)(k * Cg + c) * T * R * S + tap;
    STORE(dw, at, gradient_blend(beta, dw, at, acc));
}

#endif  // DIRECTION == 2
