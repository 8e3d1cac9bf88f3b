// A float16 layer's tensor widened to float32 once, where a kernel would
// otherwise convert the same element many times in its inner loop: the 1x1
// GEMM's weights (read as MR scalars a reduction step; widened at
// set_weights), the implicit GEMM's input (each element broadcast to NR
// channels at every tap that reads it; widened per run into the workspace).
// PoCL converts a lone vload_half with ~10 integer operations (vload_half8
// is one F16C instruction), which inside those loops left the half GEMMs at
// 0.2-0.45x of float32 (ResNet-50 N = 1, Zen 3). Built after
// kernels_cl/storage.cl with STORAGE_HALF. Eight elements a work-item
// through vload_half8, which PoCL turns into F16C's vcvtph2ps where the CPU
// has it; the last work-item takes the tail one at a time.
// NDRange: dim0 = ceil(count / 8) rounded up.
__kernel void widen_to_float(__global const STORAGE* restrict in, const ulong in_offset, __global float* restrict out,
                             const ulong out_offset, const ulong count) {
    const size_t i = get_global_id(0) * 8;
    if (i >= count) return;
    in += in_offset;
    out += out_offset;
    if (i + 8 <= count) {
        vstore8(LOADN(8, 0, in + i), 0, out + i);
    } else {
        for (size_t j = i; j < count; ++j) out[j] = LOAD(in, j);
    }
}
