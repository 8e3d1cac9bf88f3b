// A float16 layer's tensor widened to float32 once, where a kernel would
// otherwise convert the same element many times in its inner loop: the 1x1
// GEMM's weights (read as MR scalars a reduction step; widened at
// set_weights), the implicit GEMM's input (each element broadcast to NR
// channels at every tap that reads it; widened per run into the workspace),
// wgrad-gemm's A operand (dy, or x in place: a chunk of pixels of each row,
// rows apart by the image's P*Q, packed into the workspace).
// PoCL converts a lone vload_half with ~10 integer operations (vload_half8
// is one F16C instruction), which inside those loops left the half GEMMs at
// 0.2-0.45x of float32 (ResNet-50 N = 1, Zen 3). Built after
// kernels_cl/storage.cl with STORAGE_HALF. Eight elements a work-item
// through vload_half8, which PoCL turns into F16C's vcvtph2ps where the CPU
// has it; the last work-item of a row takes its tail one at a time. `rows`
// rows of `count` elements, in_stride apart in `in` and out_stride apart in
// `out` (one row for a whole tensor), numbered along one dimension: rows of
// 49 (res5's 7x7 pixels) in a dimension of their own left 57 of every 64
// lanes idle.
// NDRange: dim0 = rows x ceil(count / 8), rounded up.
__kernel void widen_to_float(__global const STORAGE* restrict in, const ulong in_offset, const ulong in_stride,
                             __global float* restrict out, const ulong out_offset, const ulong out_stride,
                             const ulong count, const ulong rows) {
    const size_t per_row = (count + 7) / 8, id = get_global_id(0), row = id / per_row;
    if (row >= rows) return;
    const size_t i = (id - row * per_row) * 8;
    in += in_offset + row * in_stride;
    out += out_offset + row * out_stride;
    if (i + 8 <= count) {
        vstore8(LOADN(8, 0, in + i), 0, out + i);
    } else {
        for (size_t j = i; j < count; ++j) out[j] = LOAD(in, j);
    }
}
