// Direct convolution, NCHW, weights K x C/groups x R x S, every parameter.
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
// across them), dim1 = P rows, dim2 = N x groups x ceil((K/groups) / KB);
// dims 0 and 1 rounded up to the work-group size.

#ifndef KB
#define KB 4
#endif
#define QB 4

__kernel void conv2d_naive(__global const float* restrict x, const ulong x_offset, __global const float* restrict w,
                           const ulong w_offset, __global const float* restrict bias, const ulong bias_offset,
                           __global float* restrict y, const ulong y_offset, const int has_bias, const int C, const int H, const int W, const int K,
                           const int P, const int Q, const int R, const int S, const int stride_h,
                           const int stride_w, const int pad_top, const int pad_left, const int dil_h,
                           const int dil_w, const int groups) {
    // Each tensor starts `*_offset` floats into its buffer (a framework's view).
    x += x_offset;
    w += w_offset;
    bias += bias_offset;
    y += y_offset;
    const int q0 = (int)get_global_id(0) * QB;
    const int p = (int)get_global_id(1);
    const int z = (int)get_global_id(2);
    if (q0 >= Q || p >= P) return;  // the NDRange is rounded up to the work-group size
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
    for (int kk = 0; kk < KB; ++kk) wbase[kk] = (k0 + min(kk, kvalid - 1)) * Cg * RS;

    float acc[KB][QB];
    for (int kk = 0; kk < KB; ++kk)
        for (int j = 0; j < QB; ++j) acc[kk][j] = 0.0f;

    const int h_origin = p * stride_h - pad_top;
    const int w_origin = q0 * stride_w - pad_left;
    for (int c = 0; c < Cg; ++c) {
        __global const float* xc = x + (size_t)((n * C + g * Cg + c) * H) * W;
        const int wc = c * RS;
        for (int r = 0; r < R; ++r) {
            const int h = h_origin + r * dil_h;
            if (h < 0 || h >= H) continue;
            __global const float* row = xc + h * W;
            for (int s = 0; s < S; ++s) {
                float xv[QB];
                for (int j = 0; j < QB; ++j) {
                    const int col = w_origin + j * stride_w + s * dil_w;
                    xv[j] = (col >= 0 && col < W && q0 + j < Q) ? row[col] : 0.0f;
                }
                const int tap = wc + r * S + s;
                for (int kk = 0; kk < KB; ++kk) {
                    const float wv = w[wbase[kk] + tap];
                    for (int j = 0; j < QB; ++j) acc[kk][j] = fma(wv, xv[j], acc[kk][j]);
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
            const float b = has_bias ? bias[k] : 0.0f;
            __global float* out = y + (size_t)((n * K + k) * P + p) * Q;
            for (int j = 0; j < QB; ++j) {
                if (q0 + j < Q) out[q0 + j] = acc[kk][j] + b;
            }
        }
    }
}
