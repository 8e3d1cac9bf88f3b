// Backward data under a stride (ops/as_forward/BackwardDataPhases.hpp): each
// phase's forward output lands in its places in dx, rows stride_h and columns
// stride_w apart; a phase without filter taps (has_part 0) writes zeros. One
// work-item per dx element of the phase: dim 0 its column, dim 1 its row,
// dim 2 image x channel; reads run along the phase's rows. Elements move as
// their bits (kernels_cl/storage.cl's STORAGE_BITS).
__kernel void scatter_phase(__global const STORAGE* restrict part, const ulong part_offset, const int has_part,
                            const int length_h, const int length_w, const int skip_h, const int skip_w,
                            __global STORAGE* restrict dx, const ulong dx_offset, const int NC, const int H,
                            const int W, const int first_h, const int first_w, const int stride_h,
                            const int stride_w, const int rows, const int cols) {
    const int q = (int)get_global_id(0);
    const int p = (int)get_global_id(1);
    const int nc = (int)get_global_id(2);
    if (q >= cols || p >= rows || nc >= NC) return;
    __global const STORAGE_BITS* from = (__global const STORAGE_BITS*)part;
    const STORAGE_BITS v =
        has_part ? from[part_offset + ((size_t)nc * length_h + skip_h + p) * length_w + skip_w + q] : 0;
    ((__global STORAGE_BITS*)dx)[dx_offset + ((size_t)nc * H + first_h + stride_h * p) * W + first_w + stride_w * q] = v;
}
