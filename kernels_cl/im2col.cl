// Column matrix for IM2COL: for each image b of a pass, rows (c, r, s) in
// C x R x S order and P·Q columns, so group g's rows are one contiguous block
// (C/groups·R·S rows) and a row-major GEMM W_g (K/groups x C/groups·R·S) x
// col_g gives that group's outputs in NCHW order directly. Taps that fall in
// the padding are written as 0. x is in the layer's type (kernels_cl/storage.cl
// comes first); the columns are netcl's float32 workspace.
//
// NDRange: dim0 = P·Q rounded up (contiguous writes), dim1 = C·R·S rows, dim2 = images of the pass.
__kernel void im2col(__global const STORAGE* restrict x, const ulong x_offset, __global float* restrict col,
                     const ulong col_offset, const int image0, const int C, const int H, const int W, const int P,
                     const int Q, const int R, const int S, const int stride_h, const int stride_w, const int pad_top,
                     const int pad_left, const int dil_h, const int dil_w) {
    x += x_offset;  // a framework's view, or the workspace's place in a caller's buffer
    col += col_offset;
    const int pq = (int)get_global_id(0);
    const int row = (int)get_global_id(1);
    const int b = (int)get_global_id(2);
    if (pq >= P * Q) return;  // dim0 is rounded up to the work-group size
    const int s = row % S;
    const int r = (row / S) % R;
    const int c = row / (R * S);
    const int p = pq / Q, q = pq % Q;
    const int h = p * stride_h - pad_top + r * dil_h;
    const int w = q * stride_w - pad_left + s * dil_w;
    float value = 0.0f;
    if (h >= 0 && h < H && w >= 0 && w < W) value = LOAD(x, ((size_t)(image0 + b) * C + c) * H * W + h * W + w);
    col[((size_t)b * C * R * S + row) * P * Q + pq] = value;
}

// The same column matrix a row of P·Q columns at a time: one work-item per
// (output row p, matrix row (c, r, s), image), copying Q floats, the padded
// ends zeroed and the rest one contiguous (stride 1) or strided read. For
// CPUs (profile key im2col_rows): the per-element kernel above divides per
// element and PoCL vectorised its reads as gathers (VGG's conv1.1: im2col
// 6x the GEMM's time); a GPU wants the per-element kernel's coalesced writes.
//
// NDRange: dim0 = P, dim1 = C·R·S rows, dim2 = images of the pass.
__kernel void im2col_rows(__global const STORAGE* restrict x, const ulong x_offset, __global float* restrict col,
                          const ulong col_offset, const int image0, const int C, const int H, const int W, const int P,
                          const int Q, const int R, const int S, const int stride_h, const int stride_w,
                          const int pad_top, const int pad_left, const int dil_h, const int dil_w) {
    const int p = (int)get_global_id(0);
    const int row = (int)get_global_id(1);
    const int b = (int)get_global_id(2);
    if (p >= P) return;  // dim0 is rounded up to the work-group size
    const int s = row % S;
    const int r = (row / S) % R;
    const int c = row / (R * S);
    __global float* out = col + col_offset + ((size_t)b * C * R * S + row) * P * Q + (size_t)p * Q;
    const int h = p * stride_h - pad_top + r * dil_h;
    if (h < 0 || h >= H) {
        for (int q = 0; q < Q; ++q) out[q] = 0.0f;
        return;
    }
    __global const STORAGE* in = x + x_offset + ((size_t)(image0 + b) * C + c) * H * W + (size_t)h * W;
    const int w0 = s * dil_w - pad_left;  // column q reads w = q * stride_w + w0
    const int q_lo = min(Q, w0 >= 0 ? 0 : (-w0 + stride_w - 1) / stride_w);
    const int q_hi = max(q_lo, W - 1 - w0 < 0 ? 0 : min(Q, (W - 1 - w0) / stride_w + 1));
    for (int q = 0; q < q_lo; ++q) out[q] = 0.0f;
    if (stride_w == 1) {
        for (int q = q_lo; q < q_hi; ++q) out[q] = LOAD(in, q + w0);
    } else if (stride_w == 2) {
        // Every other float, 16 at a time from two vectors, where the scalar
        // loop took about 3 cycles a float: ResNet's stem's weight gradient
        // (its columns copied by this kernel) at N = 8 21.4-22.4 -> 20.6-20.9
        // ms, at N = 1 2.40-2.94 -> 2.21-2.33 (2 cores of an Intel Xeon, 2
        // pairs of alternating processes). The second vector's last float is
        // the next tap's, read only while that tap is itself in the row.
        int q = q_lo;
        for (; q + 16 < q_hi; q += 16) {
            __global const STORAGE* from = in + 2 * q + w0;
            // 8-lane loads: a half's (kernels_cl/storage.cl) is one F16C conversion on x86 at any
            // half's offset, where PoCL's vload_half16 without AVX-512 is unproven at unaligned ones.
            const float16 lo = (float16)(LOADN(8, 0, from), LOADN(8, 0, from + 8));
            const float16 hi = (float16)(LOADN(8, 0, from + 16), LOADN(8, 0, from + 24));
            vstore16(shuffle2(lo, hi, (uint16)(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)), 0,
                     out + q);
        }
        for (; q < q_hi; ++q) out[q] = LOAD(in, 2 * q + w0);
    } else {
        for (int q = q_lo; q < q_hi; ++q) out[q] = LOAD(in, q * stride_w + w0);
    }
    for (int q = q_hi; q < Q; ++q) out[q] = 0.0f;
}

// The patch matrix for the weight gradient (ops/weight_gradient/): the
// transpose of the column matrix above, for a chunk of `pixels` output
// pixels of one image from pixel pq0 on, a (pixels) x (C/groups·R·S) block
// per group g, row l holding the patch output pixel pq0 + l read. dW_g then
// gains dY_g's columns pq0.. (K/groups x pixels, NCHW as it lies) x this
// block: a row-major GEMM reducing over the chunk's pixels. Taps in the
// padding are 0.
//
// A work-item copies `run` consecutive pixels of one patch column, stepping
// the output row and column instead of dividing for each (five integer
// divisions an element, which AVX2 cannot vectorise, had made the copy 4.4
// of the 5.3 ms of ResNet's res2.reduce weight gradient: measured by timing
// the layer with the copy, then the GEMM, made to return at once).
//
// A whole run of 16 pixels of a 1x1 stride-1 unpadded layer (dy's copy with
// x's columns in place) is contiguous in x: one vector load, which in half
// is F16C's conversion of the 16 instead of ~10 integer operations each. On
// ResNet's res2.reduce at N = 8 (Zen 3, a chunk of 1568 pixels, 64 lanes)
// the copy took 0.39 -> 0.13 ms in half, 0.41 -> 0.23 in float32 (3136
// pixels).
//
// NDRange: dim0 = C/groups·R·S rounded up (contiguous writes), dim1 =
// ceil(pixels / run), dim2 = groups.
__kernel void im2col_patches(__global const STORAGE* restrict x, const ulong x_offset, __global float* restrict patches,
                             const ulong patches_offset, const int image, const int pq0, const int pixels,
                             const int C, const int H, const int W, const int Q, const int R, const int S,
                             const int stride_h, const int stride_w, const int pad_top, const int pad_left,
                             const int dil_h, const int dil_w, const int groups, const int run) {
    const int Cg = C / groups;
    const int length = Cg * R * S;
    const int j = (int)get_global_id(0);
    const int l0 = (int)get_global_id(1) * run;
    const int g = (int)get_global_id(2);
    if (j >= length || l0 >= pixels) return;  // dims rounded up to the work-group size
    const int s = j % S;
    const int r = (j / S) % R;
    const int c = g * Cg + j / (R * S);
    const int pq = pq0 + l0;
    int p = pq / Q, q = pq - (pq / Q) * Q;
    const int h0 = r * dil_h - pad_top, w0 = s * dil_w - pad_left;
    __global const STORAGE* xc = x + x_offset + ((size_t)image * C + c) * H * W;
    __global float* out = patches + patches_offset + ((size_t)g * pixels + l0) * length + j;
    const int n = min(run, pixels - l0);
    if (n == 16 && R == 1 && S == 1 && stride_h == 1 && stride_w == 1 && pad_top == 0 && pad_left == 0 && Q == W &&
        pq + 16 <= H * W) {
        float values[16];
        vstore16(LOADN(16, 0, xc + pq), 0, values);
        for (int t = 0; t < 16; ++t) out[(size_t)t * length] = values[t];
        return;
    }
    for (int t = 0; t < n; ++t) {
        const int h = p * stride_h + h0, w = q * stride_w + w0;
        float value = 0.0f;
        if (h >= 0 && h < H && w >= 0 && w < W) value = LOAD(xc, h * W + w);
        out[(size_t)t * length] = value;
        if (++q == Q) q = 0, ++p;
    }
}

// The patch matrix of a 1x1 stride-1 unpadded layer (dy's with x's columns
// in place, or x's): output pixel pq0 + l of channel c lies at pq0 + l of
// c's plane, so the block is the planes transposed. A work-item takes 8
// channels x 8 pixels: eight vector loads along the planes, the 8 x 8
// transposed in registers, eight vector stores along the patch rows, where
// im2col_patches' run of 16 pixels stores a lane at a time, 16 rows apart.
// A short block (channels or pixels off the 8) copies an element at a time.
//
// PREFETCH_PLANES (CPUs whose compiler has __builtin_prefetch): each full
// block prefetches its 8 planes that many floats on. A work-group's blocks
// run along 64 pixels of 8 planes and the next work-groups take the other
// channels' planes at the same pixels, so a pass over 64 pixels reads every
// plane: more streams than the hardware prefetchers follow, and the loads
// waited on memory. 64 floats is the same block of the next pass. ResNet's
// stem's weight gradient at N = 8 (dy's 64 planes of 112x112) on 2 cores of
// an Intel Xeon: this kernel's perf samples against the GEMM's 0.72, 0.76
// -> 0.46, 0.50; netcl / oneDNN 3.2 0.39, 0.39 -> 0.43, 0.40 (2 pairs of
// alternating processes), res3.reduce.first's (128 planes of 56x56) 0.63,
// 0.55 -> 0.63, 0.60. Prefetches past the planes' end never fault.
//
// NDRange: dim0 = ceil(C/groups / 8), dim1 = ceil(pixels / 8), dim2 = groups.
__kernel void transpose_planes(__global const STORAGE* restrict x, const ulong x_offset,
                               __global float* restrict patches, const ulong patches_offset, const int image,
                               const int pq0, const int pixels, const int C, const int plane, const int groups) {
    const int Cg = C / groups;
    const int j0 = (int)get_global_id(0) * 8;
    const int l0 = (int)get_global_id(1) * 8;
    const int g = (int)get_global_id(2);
    if (j0 >= Cg || l0 >= pixels) return;  // dims rounded up to the work-group size
    __global const STORAGE* in = x + x_offset + ((size_t)image * C + g * Cg + j0) * plane + pq0 + l0;
    __global float* out = patches + patches_offset + ((size_t)g * pixels + l0) * Cg + j0;
    if (j0 + 8 <= Cg && l0 + 8 <= pixels) {
        float v[8][8];
#ifdef PREFETCH_PLANES
        for (int c = 0; c < 8; ++c) __builtin_prefetch(in + (size_t)c * plane + PREFETCH_PLANES, 0, 3);
#endif
        for (int c = 0; c < 8; ++c) vstore8(LOADN(8, 0, in + (size_t)c * plane), 0, v[c]);
        for (int t = 0; t < 8; ++t) {
            vstore8((float8)(v[0][t], v[1][t], v[2][t], v[3][t], v[4][t], v[5][t], v[6][t], v[7][t]), 0,
                    out + (size_t)t * Cg);
        }
        return;
    }
    const int channels = min(8, Cg - j0), n = min(8, pixels - l0);
    for (int t = 0; t < n; ++t) {
        for (int c = 0; c < channels; ++c) out[(size_t)t * Cg + c] = LOAD(in, (size_t)c * plane + t);
    }
}

// Backward data from the column matrix (ops/col2im/): cols holds image n's
// column matrix of dx's gradient, rows (c, r, s) and P·Q columns -- W^T dy,
// what each output pixel's tap sends back -- and each dx element gathers
// the taps that read it: h = p * stride_h - pad_top + r * dil_h, so for each
// r the one p it came from, if p is whole and inside P (likewise q). A
// gather, not col2im's scatter-add: every dx element is written once, in a
// fixed order, with no atomics and no zeroing pass. dx in the layer's type.
//
// NDRange: dim0 = W rounded up, dim1 = H, dim2 = C.
__kernel void col2im(__global const float* restrict cols, const ulong cols_offset, __global STORAGE* restrict dx,
                     const ulong dx_offset, const int image, const int C, const int H, const int W, const int P,
                     const int Q, const int R, const int S, const int stride_h, const int stride_w,
                     const int pad_top, const int pad_left, const int dil_h, const int dil_w) {
    const int w = (int)get_global_id(0);
    const int h = (int)get_global_id(1);
    const int c = (int)get_global_id(2);
    if (w >= W) return;  // dim0 is rounded up to the work-group size
    dx += dx_offset;
    __global const float* cc = cols + cols_offset + (size_t)c * R * S * P * Q;
    // The output rows whose taps can reach h: p * stride_h in [h + pad_top - (R - 1) * dil_h, h + pad_top],
    // each through tap r = (h + pad_top - p * stride_h) / dil_h where that divides (likewise columns):
    // ceil(R / stride_h) rows, not R tests of a remainder. (The ceiling of a possibly negative bound is
    // taken on it plus a multiple of the stride that makes it positive.)
    const int ht = h + pad_top, wt = w + pad_left;
    const int p_lo = max(0, (ht - (R - 1) * dil_h + stride_h - 1 + stride_h * R * dil_h) / stride_h - R * dil_h);
    const int p_hi = min(P - 1, ht >= 0 ? ht / stride_h : -1);
    const int q_lo = max(0, (wt - (S - 1) * dil_w + stride_w - 1 + stride_w * S * dil_w) / stride_w - S * dil_w);
    const int q_hi = min(Q - 1, wt >= 0 ? wt / stride_w : -1);
    float sum = 0.0f;
    if (dil_h == 1 && dil_w == 1) {  // every p and q in range reaches h and w (no remainders to test)
        for (int p = p_lo; p <= p_hi; ++p) {
            __global const float* row = cc + ((size_t)(ht - p * stride_h) * S * P + p) * Q;
            for (int q = q_lo; q <= q_hi; ++q) sum += row[(size_t)(wt - q * stride_w) * P * Q + q];
        }
    } else {
        for (int p = p_lo; p <= p_hi; ++p) {
            const int dh = ht - p * stride_h;
            if (dh % dil_h != 0) continue;
            const int r = dh / dil_h;
            for (int q = q_lo; q <= q_hi; ++q) {
                const int dw = wt - q * stride_w;
                if (dw % dil_w != 0) continue;
                sum += cc[((size_t)(r * S + dw / dil_w) * P + p) * Q + q];
            }
        }
    }
    STORE(dx, (((size_t)image * C + c) * H + h) * W + w, sum);
}
