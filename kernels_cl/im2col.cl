// Column matrix for IM2COL: for each image b of a pass, rows (c, r, s) in
// C x R x S order and P·Q columns, so group g's rows are one contiguous block
// (C/groups·R·S rows) and a row-major GEMM W_g (K/groups x C/groups·R·S) x
// col_g gives that group's outputs in NCHW order directly. Taps that fall in
// the padding are written as 0.
//
// NDRange: dim0 = P·Q rounded up (contiguous writes), dim1 = C·R·S rows, dim2 = images of the pass.
__kernel void im2col(__global const float* restrict x, const ulong x_offset, __global float* restrict col,
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
    if (h >= 0 && h < H && w >= 0 && w < W) value = x[((size_t)(image0 + b) * C + c) * H * W + h * W + w];
    col[((size_t)b * C * R * S + row) * P * Q + pq] = value;
}
