// GEMM operands laid out in the order the engine's inner loop reads them
// (kernels_cl/gemm.cl's A_PANEL and B_PANEL with C_IMAGES), as float32
// whatever the tensor's storage (built after kernels_cl/storage.cl; a
// float16 tensor is widened on the way). Row-major A is MR streams a row
// apart, and B read from x in place a row of H*W floats a step, a page apart
// at 56x56: the hardware prefetchers re-learn them page by page. The 1x1
// GEMM's weights are packed once, at set_weights; x per run, where its
// images are few pixels each (ops/gemm/Gemm1x1Config.cpp says where).

// A (rows x cols, row-major, a group's block groups apart) in panels of mr
// rows: panel t holds rows t*mr.. (the last shifted back to end at `rows`,
// and clamped where rows < mr, as the GEMM's row tiles are), its element
// (i, k) at out[(t * cols + k) * mr + i]. Eight steps k a work-item: its mr
// rows read as vectors and written as one run of 8 * mr floats (a step a
// work-item, res5's 2048 x 512 weights took 3.4 ms on 2 Zen 3 cores).
// NDRange: dim0 = ceil(cols / 8), dim1 = panels, dim2 = groups.
__kernel void pack_row_panels(__global const STORAGE* restrict in, const ulong in_offset, const ulong in_group_stride,
                              __global float* restrict out, const ulong out_group_stride, const int rows,
                              const int cols, const int mr) {
    const int k0 = (int)get_global_id(0) * 8, t = (int)get_global_id(1), g = (int)get_global_id(2);
    if (k0 >= cols || t >= (rows + mr - 1) / mr) return;
    const int m0 = max(min(t * mr, rows - mr), 0);
    in += in_offset + (size_t)g * in_group_stride;
    out += (size_t)g * out_group_stride + ((size_t)t * cols + k0) * mr;
    for (int i = 0; i < mr; ++i) {
        __global const STORAGE* row = in + (size_t)min(m0 + i, rows - 1) * cols;
        if (k0 + 8 <= cols) {
            const float8 v = LOADN(8, 0, row + k0);
            out[0 * mr + i] = v.s0;
            out[1 * mr + i] = v.s1;
            out[2 * mr + i] = v.s2;
            out[3 * mr + i] = v.s3;
            out[4 * mr + i] = v.s4;
            out[5 * mr + i] = v.s5;
            out[6 * mr + i] = v.s6;
            out[7 * mr + i] = v.s7;
        } else {
            for (int k = k0; k < cols; ++k) out[(k - k0) * mr + i] = LOAD(row, k);
        }
    }
}

// The same panels of A from its transpose, stored cols x rows (a group's
// block rows * cols after the last): a 1x1 layer's K/groups x C/groups
// filters, whose transpose is backward data's A. Step k of panel t is the mr
// values at in[k * rows + first..], one run: copied as they lie, where the
// rotation had transposed the filters in a pass of its own first
// (kernels_cl/rotate_filters.cl) before a GEMM on panels packed them.
// NDRange: dim0 = ceil(cols / 8), dim1 = panels, dim2 = groups.
__kernel void pack_row_panels_transposed(__global const STORAGE* restrict in, const ulong in_offset,
                                         const ulong in_group_stride, __global float* restrict out,
                                         const ulong out_group_stride, const int rows, const int cols, const int mr) {
    const int k0 = (int)get_global_id(0) * 8, t = (int)get_global_id(1), g = (int)get_global_id(2);
    if (k0 >= cols || t >= (rows + mr - 1) / mr) return;
    const int first = max(min(t * mr, rows - mr), 0);  // the last panel shifted back, as pack_row_panels's
    in += in_offset + (size_t)g * in_group_stride;
    out += (size_t)g * out_group_stride + ((size_t)t * cols + k0) * mr;
    const int steps = min(8, cols - k0);
    for (int k = 0; k < steps; ++k) {
        __global const STORAGE* step = in + (size_t)(k0 + k) * rows;
        for (int i = 0; i < mr; ++i) out[k * mr + i] = LOAD(step, min(first + i, rows - 1));
    }
}

// B = im2col(x) in panels of nr columns: rows (c, r, s) in C x R x S order,
// columns every image's output pixels in turn, column j being image
// j / (P*Q)'s output pixel (p, q), whose tap (r, s) reads input row
// p * stride_h - pad_top + r * dil_h and column q * stride_w - pad_left +
// s * dil_w of channel c (0 in the padding); panel t's row at
// out[(t * rows + row) * nr], columns past the last image zero. For a 1x1
// layer this is x itself in panels, or a strided layer's gather; a run of nr
// pixels inside one image of a 1x1 stride-1 unpadded layer (P = H, Q = W: no
// padded rows past the image either) is one vector copy.
// A work-item takes a channel's R x S rows of a panel, finding its columns'
// pixels once.
// NDRange: dim0 = panels, dim1 = channels.
__kernel void pack_column_panels(__global const STORAGE* restrict in, const ulong in_offset, const ulong image_stride,
                                 const ulong row_stride, __global float* restrict out, const ulong out_offset,
                                 const int channels, const int columns, const int H, const int W, const int P,
                                 const int Q, const int R, const int S, const int stride_h, const int stride_w,
                                 const int pad_top, const int pad_left, const int dil_h, const int dil_w, const int nr) {
    const int t = (int)get_global_id(0), c = (int)get_global_id(1);
    if (t >= (columns + nr - 1) / nr || c >= channels) return;
    const int pixels = P * Q, j0 = t * nr, image0 = j0 / pixels, pixel0 = j0 - image0 * pixels, taps = R * S;
    in += in_offset + (size_t)c * row_stride;
    out += out_offset + ((size_t)t * channels * taps + (size_t)c * taps) * nr;
    if (taps == 1 && stride_h == 1 && stride_w == 1 && pad_top == 0 && pad_left == 0 && P == H && Q == W && nr % 8 == 0 &&
        j0 + nr <= columns && pixel0 + nr <= pixels) {
        __global const STORAGE* run = in + (size_t)image0 * image_stride + pixel0;
        for (int v = 0; v < nr / 8; ++v) vstore8(LOADN(8, v, run), v, out);
        return;
    }
    // The panel's columns in runs along output rows (a run ends where a row does; the last image ends a row, so
    // a run is all inside the images or all past them): a tap of a run reads one input row, as vectors where
    // the run's whole eights lie inside it (stride 2 as 16-float loads, their even lanes), the rest a pixel
    // at a time. A column a lane, with two divisions each, the stem's pack took 1.75 ms an image on 2 Zen 3
    // cores (as long as its GEMM), the runs 0.4-1.0 (the host's load). While only runs of whole eights were
    // vectors, a strided 1x1 layer's gather gained nothing: res3's projection (rows of 28 output pixels, cut
    // by 16-wide panels into runs of 16, 12, 4 and 8, the 12s and 4s scalar) packed its x at N = 8 in 10.6 ms
    // a column a lane and 10.7-12.8 in runs on that Zen 3. With the eights as vectors, on 2 cores of an Intel Xeon the packed 1x1 GEMM took that layer from
    // the implicit GEMM's 11.1 ms to 7.9 at N = 8 (pocl-cpu-avx512-intel.json).
    int image = image0, p = pixel0 / Q, q = pixel0 - p * Q;
    for (int l0 = 0; l0 < nr;) {
        const int run = min(nr - l0, Q - q);
        const bool live = j0 + l0 < columns;
        __global const STORAGE* plane = in + (size_t)image * image_stride;
        for (int r = 0; r < R; ++r) {
            const int h = p * stride_h - pad_top + r * dil_h;
            const bool row_inside = live && h >= 0 && h < H;
            for (int s = 0; s < S; ++s) {
                __global float* dst = out + (r * S + s) * nr + l0;
                const int w0 = q * stride_w - pad_left + s * dil_w;
                int l = 0;
                const int eights = run / 8;
                if (row_inside && eights > 0 && stride_w <= 2 && w0 >= 0 && w0 + eights * 8 * stride_w <= W) {
                    __global const STORAGE* from = plane + (size_t)h * W + w0;
                    for (int v = 0; v < eights; ++v)
                        vstore8(stride_w == 1 ? LOADN(8, v, from) : LOADN(16, v, from).even, v, dst);
                    l = eights * 8;
                }
                for (; l < run; ++l) {
                    const int w = w0 + l * stride_w;
                    dst[l] = row_inside && w >= 0 && w < W ? LOAD(plane, (size_t)h * W + w) : 0.0f;
                }
            }
        }
        l0 += run;
        q += run;
        if (q == Q) {
            q = 0;
            if (++p == P) {
                p = 0;
                ++image;
            }
        }
    }
}
