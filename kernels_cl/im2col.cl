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
    for (int t = 0; t < n; ++t) {
        const int h = p * stride_h + h0, w = q * stride_w + w0;
        float value = 0.0f;
        if (h >= 0 && h < H && w >= 0 && w < W) value = LOAD(xc, h * W + w);
        out[(size_t)t * length] = value;
        if (++q == Q) q = 0, ++p;
    }
}
