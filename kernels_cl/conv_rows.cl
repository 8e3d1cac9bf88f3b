// Direct convolution vectorised along output rows, for layers with few input
// channels and wide outputs (ResNet's stem: C = 3, 7x7 stride 2, 112 outputs
// a row). Needs kernels_cl/gemm_tile.cl first (MR, NV, VW, vec_t, VLOAD).
// x, w, bias and y are in the layer's type (kernels_cl/storage.cl); the split
// planes and packed weights are netcl's float32 workspaces.
//
// Why it exists beside the implicit GEMM (kernels_cl/conv_kvec.cl): that one
// vectorises over output channels and stores each pixel's channels as
// scalars strided by P*Q. With C*R*S = 147 steps per tile the stores were a
// large share of the stem's time, each to its own cache line (perf, README).
// Here a work-item owns MR output channels x NV*VW consecutive outputs of one
// row: the weights are the broadcast operand, the input row the vector one,
// and the outputs leave as whole vectors.
//
// A stride-2 row is not contiguous in the input; conv_rows_split (below)
// first copies the input, padded, as FSW column phases: phase f of padded row
// h holds padded columns f, f + FSW, f + 2*FSW, ... So tap s of outputs q0..
// reads phase s % FSW from column q0 + s / FSW on: one unaligned vector load,
// no bounds checks (the padding is in the copy).
//
// Build options: MR, NV, VW (gemm_tile.cl), S (the filter width: its taps
// unroll), FSW (the column stride, so each tap's phase and shift are
// constants: with the stride an argument the stem ran 7.1-7.9 ms against
// 5.3-5.7 at N = 8), BIAS, STREAM_OUTPUT (kernels_cl/storage.cl: the
// outputs' whole vectors stored past the caches). The filter height and the row stride are arguments.

// The split input: [image][C][plane_h][FSW][plane_w], zeros outside the image.
// NDRange: dim0 = plane_w, dim1 = plane_h * FSW, dim2 = images * C.
__kernel void conv_rows_split(__global const STORAGE* restrict x, const ulong x_offset, __global float* restrict xs,
                              const ulong xs_offset, const int H, const int W, const int pad_top, const int pad_left,
                              const int plane_h, const int plane_w) {
    const int wq = (int)get_global_id(0), hf = (int)get_global_id(1), nc = (int)get_global_id(2);
    if (wq >= plane_w || hf >= plane_h * FSW) return;
    const int hp = hf / FSW, f = hf - hp * FSW;
    const int ih = hp - pad_top, iw = wq * FSW + f - pad_left;
    const int inside = ih >= 0 && ih < H && iw >= 0 && iw < W;
    const float v = inside ? LOAD(x, x_offset + ((size_t)nc * H + ih) * W + iw) : 0.0f;
    xs[xs_offset + (((size_t)nc * plane_h + hp) * FSW + f) * plane_w + wq] = v;
}

// Weights K x C x R x S into panels [ceil(K/MR)][C][R][S][MR], zeros past K:
// a work-item's MR broadcasts per tap are consecutive floats.
// NDRange: dim0 = ceil(K/MR)*MR, dim1 = C*R*S.
__kernel void conv_rows_pack(__global const STORAGE* restrict w, const ulong w_offset, __global float* restrict wp,
                             const int K, const int C, const int R) {
    const int k = (int)get_global_id(0), crs = (int)get_global_id(1);
    // The range is rounded up to the work-group: past the last panel is past the buffer.
    if (k >= (K + MR - 1) / MR * MR || crs >= C * R * S) return;
    const float value = k < K ? LOAD(w, w_offset + (size_t)k * C * R * S + crs) : 0.0f;
    wp[((size_t)(k / MR) * C * R * S + crs) * MR + k % MR] = value;
}

// NDRange: dim0 = output tiles of a row (ceil(Q / (NV*VW))), dim1 = P, dim2 =
// images * ceil(K / MR). The last tile of a row is shifted back to end at Q
// (rows at least NV*VW wide); a narrower row stores lane by lane.
__kernel void conv_rows(__global const float* restrict xs, const ulong xs_offset, const int plane_h,
                        const int plane_w, __global const float* restrict wp, __global STORAGE* restrict y,
                        const ulong y_offset, const int y_image_stride, __global const STORAGE* restrict bias,
                        const ulong bias_offset, const int C, const int K, const int P, const int Q, const int R,
                        const int SH) {
    const int tq = (int)get_global_id(0), p = (int)get_global_id(1), nk = (int)get_global_id(2);
    const int k_panels = (K + MR - 1) / MR;
    if (tq * NR >= Q || p >= P) return;
    const int n = nk / k_panels, kp = nk - n * k_panels;
    const int q0 = Q >= NR ? min(tq * NR, Q - NR) : 0;
    const size_t plane = (size_t)plane_h * FSW * plane_w;
    __global const float* xc = xs + xs_offset + (size_t)n * C * plane + (size_t)(p * SH) * FSW * plane_w + q0;
    __global const float* wk = wp + (size_t)kp * C * R * S * MR;

    vec_t acc[MR][NV];
#pragma unroll
    for (int m = 0; m < MR; ++m)
#pragma unroll
        for (int v = 0; v < NV; ++v) acc[m][v] = (vec_t)(0.0f);

    for (int c = 0; c < C; ++c) {
        for (int r = 0; r < R; ++r) {
            __global const float* row = xc + (size_t)r * FSW * plane_w;
#pragma unroll
            for (int s = 0; s < S; ++s) {
                __global const float* xp = row + (s % FSW) * plane_w + s / FSW;
                vec_t xv[NV];
#pragma unroll
                for (int v = 0; v < NV; ++v) xv[v] = VLOAD(v, xp);
#pragma unroll
                for (int m = 0; m < MR; ++m) {
                    const vec_t wv = (vec_t)(wk[s * MR + m]);
#pragma unroll
                    for (int v = 0; v < NV; ++v) acc[m][v] = fma(wv, xv[v], acc[m][v]);
                }
            }
            wk += S * MR;
        }
        xc += plane;
    }

    // Whole vectors along the row; a guard per channel (the last panel may
    // pass K), lanes only where the row is narrower than the tile.
#pragma unroll
    for (int m = 0; m < MR; ++m) {
        const int k = kp * MR + m;
        if (k >= K) continue;
#ifdef BIAS
        const vec_t b = (vec_t)(LOAD(bias, bias_offset + k));
#else
        const vec_t b = (vec_t)(0.0f);
#endif
        __global STORAGE* yp = y + y_offset + (size_t)n * y_image_stride + ((size_t)k * P + p) * Q + q0;
#ifdef POST_SUM
        // The shifted-back last tile stores only the columns its neighbour did not.
        const int q_own = Q >= NR ? tq * NR - q0 : 0;
#else
        const int q_own = 0;
#endif
        if (Q >= NR && q_own == 0) {
#pragma unroll
            for (int v = 0; v < NV; ++v) STOREN_STREAM(VW, POST_OPS(acc[m][v] + b, LOADN(VW, v, yp)), v, yp);
        } else {
#pragma unroll
            for (int v = 0; v < NV; ++v) {
                const vec_t o = acc[m][v] + b;
#pragma unroll
                for (int t = 0; t < VW; ++t)
                    if (v * VW + t < Q && v * VW + t >= q_own) STORE(yp, v * VW + t, POST_OPS(LANE(o, t), LOAD(yp, v * VW + t)));
            }
        }
    }
}
